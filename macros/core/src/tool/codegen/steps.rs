//! The facts of each resume step, as the step table, the docs and the continuation's layout
//! fingerprint name them: keys, carried slots, program counters.

use super::*;

impl Gen<'_> {
    /// The client capabilities the handler's `ask!` requests name, sorted: what its `Handler`
    /// const lists.
    pub fn capabilities(&self) -> Vec<&'static str> {
        let mut capabilities: Vec<&str> = self
            .body
            .sites
            .iter()
            .flat_map(|s| &s.keys)
            .filter_map(|k| k.capability)
            .collect();
        capabilities.sort_unstable();
        capabilities.dedup();
        capabilities
    }

    /// Bit `i` set for each carried slot `i` the step saves.
    pub fn step_mask(&self, site: SiteId) -> u64 {
        let frame = self
            .plan
            .frames
            .iter()
            .position(|&s| s == site)
            .map(|i| self.plan.carried.len() + i);
        self.step_slots(site)
            .into_iter()
            .filter_map(|b| self.plan.carried.iter().position(|&c| c == b))
            .chain(frame)
            .fold(0, |mask, i| mask | (1 << i))
    }

    /// The names of what a step carries, in slot order: its locals' wire names, then for a
    /// helper site `#site`, the callee's frame (`#` cannot start a local's name).
    pub fn carried_names(&self, site: SiteId) -> Vec<String> {
        let mut names: Vec<String> = self
            .step_slots(site)
            .into_iter()
            .map(|b| self.binding(b).wire.clone())
            .collect();
        if let Some((key, _)) = self.body.sites[site].helper() {
            names.push(format!("#{}", key.key));
        }
        names
    }

    /// The program counter value of a site's resume arm.
    pub fn resume_pc(&self, site: SiteId) -> u32 {
        self.plan
            .arms
            .iter()
            .position(|arm| matches!(arm, Arm::Resume(s) if *s == site))
            .expect("every site has a resume arm") as u32
    }

    /// The serialized slots of a step, in their fixed order.
    pub fn step_slots(&self, site: SiteId) -> Vec<BindingId> {
        self.body.sites[site]
            .live
            .iter()
            .copied()
            .filter(|&b| self.binding(b).is_serialized())
            .collect()
    }

    /// The wire key as documented: `name`, `name#{i0}`, `name#{i0}.{i1}`.
    pub fn key_display(&self, site: SiteId, key: &Ident) -> String {
        let loops = &self.body.sites[site].loops;
        if loops.is_empty() {
            return key.to_string();
        }
        let indices: Vec<String> = loops.iter().map(|c| format!("{{i{c}}}")).collect();
        format!("{key}#{}", indices.join("."))
    }

    /// "asking `k`; carries `a`, `b`": one step, as the step table's docs and the step enum's
    /// variants describe it.
    pub fn step_summary(&self, site: SiteId) -> String {
        let keys: Vec<String> = self.body.sites[site]
            .keys
            .iter()
            .map(|k| format!("`{}`", self.key_display(site, &k.key)))
            .collect();
        let carried: Vec<String> = self
            .carried_names(site)
            .into_iter()
            .map(|name| format!("`{name}`"))
            .collect();
        let carried = if carried.is_empty() {
            "nothing".to_owned()
        } else {
            carried.join(", ")
        };
        match self.body.sites[site].helper() {
            Some((key, helper)) => format!(
                "entering the helper `{}`, whose keys are asked as `{}.<key>`; carries {carried}",
                helper.name,
                self.key_display(site, &key.key)
            ),
            None => format!("asking {}; carries {carried}", keys.join(", ")),
        }
    }

    pub fn layout(&self, site: SiteId) -> String {
        let keys: Vec<String> = self.body.sites[site]
            .keys
            .iter()
            .map(|k| self.key_display(site, &k.key))
            .collect();
        let slots = self.carried_names(site);
        format!(
            "::{}|{}|{}|{}",
            self.fn_name,
            self.body.sites[site].step,
            keys.join(","),
            slots.join(",")
        )
    }

    /// The key expression at the ask site, where the loop counters are locals.
    pub(super) fn key_at_ask(&self, site: SiteId, key: &Ident) -> TokenStream {
        let name = key.to_string();
        let loops = &self.body.sites[site].loops;
        if loops.is_empty() {
            return quote!(#name);
        }
        let counters = loops
            .iter()
            .map(|&c| self.local(self.body.constructs[c].kind.counter().expect("loop")));
        let rt = rt();
        quote!(#rt::loop_key(#name, &[#(#counters),*]))
    }

    /// The key expression in the resume arm, before anything is taken out of its slot.
    pub(super) fn key_at_resume(&self, site: SiteId, key: &Ident) -> TokenStream {
        let name = key.to_string();
        let loops = &self.body.sites[site].loops;
        if loops.is_empty() {
            return quote!(#name);
        }
        let counters = loops.iter().map(|&c| {
            let b = self.body.constructs[c].kind.counter().expect("loop");
            let slot = self.carried_slot(b).expect("a loop index is carried");
            let wire = &self.binding(b).wire;
            self.or_bail(quote!(#slot.value), quote!(__mrtr_io.lost(#wire)))
        });
        let rt = rt();
        quote!(&#rt::loop_key(#name, &[#(#counters),*]))
    }
}
