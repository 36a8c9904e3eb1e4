//! Slots: where a binding waits between arms. Parking values into them, taking them out at the
//! start of an arm, and parameters taken again from the request instead of parked.

use super::*;

impl Gen<'_> {
    /// The `Option` a binding is parked in between arms: a field of the carried tuple for the
    /// bindings a continuation may save, else a local of its own.
    pub fn slot(&self, b: BindingId) -> TokenStream {
        match self.carried_slot(b) {
            Some(slot) => quote!(#slot.value),
            None => {
                let ident = self.slot_local(b);
                quote!(#ident)
            }
        }
    }

    pub(super) fn slot_local(&self, b: BindingId) -> Ident {
        let binding = self.binding(b);
        let name = binding.ident.to_string();
        // No `__` inside the name (`_args` would give `__mrtr_s__args`): rustc's snake-case
        // lint fires on it in the user's crate.
        let name = name
            .trim_start_matches("__mrtr_")
            .trim_start_matches("r#")
            .trim_start_matches('_');
        Ident::new(&format!("__mrtr_s_{name}_{b}"), binding.ident.span())
    }

    /// The carried slot (`mrtr::Slot`) of a binding some step saves: `__mrtr_c.i`, or
    /// `__mrtr_c.j.i` once there are more than a tuple's worth.
    pub(super) fn carried_slot(&self, b: BindingId) -> Option<TokenStream> {
        let index = self.plan.carried.iter().position(|&c| c == b)?;
        Some(self.carried_at(index))
    }

    /// The slot of the callee's frame at a helper site: after the carried locals.
    pub(super) fn frame_slot(&self, site: SiteId) -> TokenStream {
        let index = self
            .plan
            .frames
            .iter()
            .position(|&s| s == site)
            .expect("a helper site has a frame slot");
        self.carried_at(self.plan.carried.len() + index)
    }

    /// The `index`-th slot of the carried tuple (of tuples, past [`TUPLE`]).
    fn carried_at(&self, index: usize) -> TokenStream {
        let field = |i: usize| syn::Index::from(i);
        if self.carried_count() <= TUPLE {
            let i = field(index);
            quote!(__mrtr_c.#i)
        } else {
            let (outer, inner) = (field(index / TUPLE), field(index % TUPLE));
            quote!(__mrtr_c.#outer.#inner)
        }
    }

    /// Ties a binding's type across arms (see `Plan::typed_by_ask`).
    pub(super) fn type_witness(&self, b: BindingId) -> Option<TokenStream> {
        if !self.plan.typed_by_ask.contains(&b) {
            return None;
        }
        let witness = format_ident!("__mrtr_ty_{}", b);
        let local = self.local(b);
        let rt = rt();
        Some(quote!(#witness = #rt::type_witness(&#local);))
    }

    /// Whether a held binding goes back into a slot at an arm's end: not a refilled parameter,
    /// which the next arm takes again from the request.
    pub(super) fn parks(&self, b: BindingId, held: &Held) -> bool {
        held.contains(&b) && self.plan.refill_of(b).is_none() && self.binding(b).view_of.is_none()
    }

    /// `park` run at a point where bindings of the same names hide the parked ones: a
    /// `macro_rules!` named `name`, to define while they are in scope, and its invocation for
    /// that point (a macro's body names the locals visible where it is defined).
    pub(super) fn deferred_park(name: Ident, park: TokenStream) -> (TokenStream, TokenStream) {
        (
            quote!(macro_rules! #name { () => { #park } }),
            quote!(#name!();),
        )
    }

    pub(super) fn park(&self, live: &Live, held: &Held) -> TokenStream {
        let parks = live.iter().filter(|&&b| self.parks(b, held)).map(|&b| {
            let slot = self.slot(b);
            let local = self.local(b);
            quote!(#slot = ::core::option::Option::Some(#local);)
        });
        quote!(#(#parks)*)
    }

    /// The parks of an `ask!`: each local is named with the ask's span, so that a local the
    /// body has partly moved (`let id = plan.id;`) is reported where the ask saves it.
    pub(super) fn park_at_ask(&self, site: SiteId, held: &Held) -> TokenStream {
        let s = &self.body.sites[site];
        let span = s
            .keys
            .first()
            .map_or_else(Span::call_site, |k| k.key.span());
        let parks = s.live.iter().filter(|&&b| self.parks(b, held)).map(|&b| {
            let slot = self.slot(b);
            let local = Ident::new(&self.local(b).to_string(), span);
            quote!(#slot = ::core::option::Option::Some(#local);)
        });
        quote!(#(#parks)*)
    }

    /// Of the bindings the analysis found hidden at a point, those this arm holds.
    pub(super) fn held_of(hides: &Live, held: &Held) -> Vec<BindingId> {
        hides.iter().copied().filter(|b| held.contains(b)).collect()
    }

    /// Whether the statement binds a `mut` local whose scope the lowering splits: its `mut` is
    /// needed by the straight-line code, but the change may happen in a later arm (after the
    /// value is taken out of its slot, or on a fresh declaration), where rustc cannot see it
    /// from here.
    pub(super) fn split_mut(&self, node: &Node) -> bool {
        node.split_after && node.defs.iter().any(|&b| self.binding(b).mutable)
    }

    /// The user's `let` with `#[allow(unused_mut)]` where [`Self::split_mut`] says its `mut`
    /// only matters in another arm; that lint and nothing else, on that statement alone.
    pub(super) fn allow_split_mut(&self, stmt: syn::Stmt, node: &Node) -> syn::Stmt {
        match stmt {
            syn::Stmt::Local(mut local) if self.split_mut(node) => {
                local.attrs.push(syn::parse_quote!(#[allow(unused_mut)]));
                syn::Stmt::Local(local)
            }
            other => other,
        }
    }

    pub(super) fn verbatim_with_parks(
        &self,
        stmt: syn::Stmt,
        hidden: &[BindingId],
        held: &Held,
    ) -> TokenStream {
        if hidden.is_empty() {
            return quote!(#stmt);
        }
        let park = self.park(&hidden.iter().copied().collect(), held);
        match stmt {
            syn::Stmt::Local(mut local) => match &mut local.init {
                Some(init) if init.diverge.is_none() => {
                    let value = &init.expr;
                    *init.expr = syn::parse_quote!({ let __mrtr_v = #value; #park __mrtr_v });
                    quote!(#local)
                }
                // `let .. else` (or `let x;`): the value and the binding are one statement, so
                // the hidden bindings are parked after it, through a macro defined before it:
                // a `macro_rules!` body names the locals visible where it is defined.
                _ => {
                    let name = format_ident!("__mrtr_hide_{}", hidden[0]);
                    let (define, invoke) = Self::deferred_park(name, park);
                    quote!(#define #local #invoke)
                }
            },
            other => quote!(#other),
        }
    }

    /// `let PAT = ..;` of a refilled parameter: the value rmcp extracted if no arm took it yet,
    /// else the same parameter again from the request (`params.rs`).
    pub(super) fn refill(&self, r: &crate::tool::params::Refilled) -> TokenStream {
        let pat = &r.pat;
        let source = format_ident!("__mrtr_src{}", r.arg);
        let again = if r.from_arguments {
            self.or_bail(quote!(__mrtr_io.reparse()), quote!(__mrtr_io.no_arm()))
        } else {
            let kept = format_ident!("__mrtr_keep{}", r.arg);
            quote!(::core::clone::Clone::clone(&#kept))
        };
        quote! {
            #[allow(unused_variables)]
            let #pat = match #source.take() {
                ::core::option::Option::Some(__mrtr_v) => __mrtr_v,
                ::core::option::Option::None => #again,
            };
        }
    }

    /// Takes out what is live and visible at a point, one block per frame so that shadowed
    /// bindings keep their own names; `inner` builds the code that runs inside.
    ///
    /// A visible binding that is dead here but assigned later in the arm (`status = a;`) is
    /// declared without a value, as the straight-line code had it in scope.
    pub(super) fn at_point(
        &self,
        frame: FrameId,
        index: usize,
        runs_from: usize,
        assigned_first: &Live,
        live: &Live,
        inner: impl FnOnce(Held) -> TokenStream,
    ) -> TokenStream {
        let visible = self.body.visible(frame, index);
        let path = self.body.path(frame, index);
        let mut assigned = assigned_first.clone();
        self.assigned_in_run(frame, runs_from, &mut assigned);
        let mut held = Held::new();
        let mut levels = Vec::new();
        let needed = |b: &BindingId| live.contains(b) || assigned.contains(b);
        // Refilled parameters are bound by `refill`, never taken out of a slot.
        let parked: Vec<(FrameId, BindingId)> = visible
            .iter()
            .copied()
            .filter(|(_, b)| self.plan.refill_of(*b).is_none())
            .filter(|(_, b)| self.binding(*b).view_of.is_none())
            .collect();
        for (f, _) in &path {
            // Refilled parameters (root level only) are bound again whole, before the locals
            // that may shadow them.
            let refills: Vec<TokenStream> = self
                .plan
                .refilled
                .iter()
                .filter(|r| {
                    *f == ROOT
                        && r.bindings
                            .iter()
                            .any(|b| needed(b) && visible.contains(&(ROOT, *b)))
                })
                .map(|r| self.refill(r))
                .collect();
            let outs: Vec<TokenStream> = parked
                .iter()
                .filter(|(vf, b)| vf == f && !live.contains(b) && assigned.contains(b))
                .map(|&(_, b)| {
                    let local = self.local(b);
                    quote!(#[allow(unused_mut)] let mut #local;)
                })
                .chain(
                    parked
                        .iter()
                        .filter(|(vf, b)| vf == f && live.contains(b))
                        // A parameter without a slot is only used by the start arm, which
                        // runs where the signature bound it (see `dispatch`).
                        .filter(|(_, b)| {
                            self.binding(*b).kind != BindingKind::Param
                                || self.plan.slotted.contains(b)
                        })
                        .map(|&(_, b)| {
                            let binding = self.binding(b);
                            let local = self.local(b);
                            let slot = self.slot(b);
                            let wire = &binding.wire;
                            let mutability = (binding.mutable
                                || binding.kind != BindingKind::Local
                                    && binding.kind != BindingKind::Param)
                                .then(|| quote!(mut));
                            let value = self.taken(quote!(#slot), wire);
                            quote!(#[allow(unused_mut)] let #mutability #local = #value;)
                        }),
                )
                .collect();
            // Views are derived again from their owners, once those are out of their slots.
            let views = visible
                .iter()
                .filter(|(vf, b)| vf == f && live.contains(b))
                .filter_map(|&(_, b)| {
                    let binding = self.binding(b);
                    let init = binding.init.as_ref()?;
                    binding.view_of?;
                    let local = self.local(b);
                    let ty = binding.ty.as_ref().map(|ty| quote!(: #ty));
                    Some(quote!(#[allow(unused_variables)] let #local #ty = #init;))
                });
            levels.push(
                refills
                    .into_iter()
                    .chain(outs)
                    .chain(views)
                    .collect::<Vec<_>>(),
            );
            held.extend(
                visible
                    .iter()
                    .filter(|(vf, b)| vf == f && (live.contains(b) || assigned.contains(b)))
                    .map(|&(_, b)| b),
            );
        }
        let mut code = inner(held);
        while let Some(outs) = levels.pop() {
            code = if levels.is_empty() {
                quote!(#(#outs)* #code)
            } else {
                quote!({ #(#outs)* #code })
            };
        }
        code
    }

    /// Bindings the code an arm runs from `from` on assigns anywhere (see [`Node::writes`]).
    pub(super) fn assigned_in_run(&self, frame: FrameId, from: usize, out: &mut Live) {
        let f = &self.body.frames[frame];
        for node in &f.stmts[from..] {
            match &node.kind {
                NodeKind::Verbatim(_) => out.extend(node.writes.iter().copied()),
                NodeKind::Ask { .. } => return,
                NodeKind::Opened { construct, .. } => {
                    if !self.body.constructs[*construct].kind.is_loop() {
                        for child in
                            crate::tool::plan::child_frames(&self.body.constructs[*construct].kind)
                        {
                            self.assigned_in_run(child, 0, out);
                        }
                    }
                    return;
                }
            }
        }
        out.extend(f.tail_writes.iter().copied());
    }
}
