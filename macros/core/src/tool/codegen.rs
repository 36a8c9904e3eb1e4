//! Emits the lowered body from the IR and the plan: hoisted slots, the resume prologue, and the
//! `'__mrtr_dispatch: loop { match pc { .. } }` with one arm per resume point, join, loop head
//! and loop exit. Nothing here re-analyses syntax: what is live, where each arm starts and which
//! jumps leave which loop were decided before.
//!
//! The generated code is kept lean on purpose: it is compiled once per handler, so saving and
//! restoring a step is one runtime call over the slot tuple (`Io::restore`, `Io::suspend`), and
//! the one `.await` the machine adds (the legacy client round) sits outside the dispatch loop.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Type};

use super::ir::*;
use super::lower::{Arm, Plan};

pub struct Gen<'a> {
    pub body: &'a Body,
    pub plan: &'a Plan,
    /// The handler's written return type.
    pub ret: &'a Type,
    pub fn_name: &'a Ident,
    /// `#[tool(local)]`: the handler's future need not be `Send`.
    pub local: bool,
}

type Held = BTreeSet<BindingId>;

fn rt() -> TokenStream {
    quote!(::mrtr::__private)
}

/// Unwraps a runtime `Result` through the body's local `__mrtr_try!`: the runtime's errors end
/// the round as a JSON-RPC error whatever the user's error type is, so `?` cannot be used.
fn attempt(expr: TokenStream) -> TokenStream {
    quote!(::mrtr::__mrtr_try!(#expr))
}

impl Gen<'_> {
    fn binding(&self, b: BindingId) -> &Binding {
        &self.body.bindings[b]
    }

    fn local(&self, b: BindingId) -> Ident {
        self.binding(b).ident.clone()
    }

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

    fn slot_local(&self, b: BindingId) -> Ident {
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
    fn carried_slot(&self, b: BindingId) -> Option<TokenStream> {
        let index = self.plan.carried.iter().position(|&c| c == b)?;
        let field = |i: usize| syn::Index::from(i);
        Some(if self.plan.carried.len() <= TUPLE {
            let i = field(index);
            quote!(__mrtr_c.#i)
        } else {
            let (outer, inner) = (field(index / TUPLE), field(index % TUPLE));
            quote!(__mrtr_c.#outer.#inner)
        })
    }

    /// Bit `i` set for each carried slot `i` the step saves.
    pub fn step_mask(&self, site: SiteId) -> u64 {
        self.step_slots(site)
            .into_iter()
            .filter_map(|b| self.plan.carried.iter().position(|&c| c == b))
            .fold(0, |mask, i| mask | (1 << i))
    }

    /// The program counter value of a site's resume arm.
    pub fn resume_pc(&self, site: SiteId) -> u32 {
        self.plan
            .arms
            .iter()
            .position(|arm| matches!(arm, Arm::Resume(s) if *s == site))
            .expect("every site has a resume arm") as u32
    }

    /// Ties a binding's type across arms (see `Plan::typed_by_ask`).
    fn type_witness(&self, b: BindingId) -> Option<TokenStream> {
        if !self.plan.typed_by_ask.contains(&b) {
            return None;
        }
        let witness = format_ident!("__mrtr_ty_{}", b);
        let local = self.local(b);
        Some(quote!(#witness = ::mrtr::__private::type_witness(&#local);))
    }

    fn transfer(c: ConstructId) -> Ident {
        format_ident!("__mrtr_t{}", c)
    }

    fn marker(key: &Ident) -> Ident {
        format_ident!("__mrtr_m_{}", key)
    }

    /// The program counter's value for an arm: a named `u32` constant (enums would cost each
    /// handler three derived impls for nothing the dispatch needs).
    /// The program counter's value for an arm: its index, as a literal (a named constant per arm
    /// would be one more item per arm for rustc to check, in every handler).
    fn pc(&self, arm: Arm) -> TokenStream {
        let index = self
            .plan
            .arms
            .iter()
            .position(|a| a == &arm)
            .expect("every arm is planned") as u32;
        quote!(#index)
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

    /// The wire key scheme of a site's key: `name`, `name#{}` or `name#{}.{}`.
    pub fn key_scheme(&self, site: SiteId, key: &Ident) -> String {
        let loops = self.body.sites[site].loops.len();
        if loops == 0 {
            key.to_string()
        } else {
            format!("{key}#{}", vec!["{}"; loops].join("."))
        }
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
            .step_slots(site)
            .into_iter()
            .map(|b| format!("`{}`", self.binding(b).wire))
            .collect();
        let carried = if carried.is_empty() {
            "nothing".to_owned()
        } else {
            carried.join(", ")
        };
        format!("asking {}; carries {carried}", keys.join(", "))
    }

    pub fn layout(&self, site: SiteId) -> String {
        let keys: Vec<String> = self.body.sites[site]
            .keys
            .iter()
            .map(|k| self.key_display(site, &k.key))
            .collect();
        let slots: Vec<&str> = self
            .step_slots(site)
            .into_iter()
            .map(|b| self.binding(b).wire.as_str())
            .collect();
        format!(
            "::{}|{}|{}|{}",
            self.fn_name,
            self.body.sites[site].step,
            keys.join(","),
            slots.join(",")
        )
    }

    /// The key expression at the ask site, where the loop counters are locals.
    fn key_at_ask(&self, site: SiteId, key: &Ident) -> TokenStream {
        let scheme = self.key_scheme(site, key);
        let loops = &self.body.sites[site].loops;
        if loops.is_empty() {
            return quote!(#scheme);
        }
        let counters = loops
            .iter()
            .map(|&c| self.local(self.body.constructs[c].kind.counter().expect("loop")));
        quote!(::std::format!(#scheme, #(#counters),*))
    }

    /// The key expression in the resume arm, before anything is taken out of its slot.
    fn key_at_resume(&self, site: SiteId, key: &Ident) -> TokenStream {
        let rt = rt();
        let scheme = self.key_scheme(site, key);
        let loops = &self.body.sites[site].loops;
        if loops.is_empty() {
            return quote!(#scheme);
        }
        let counters = loops.iter().map(|&c| {
            let b = self.body.constructs[c].kind.counter().expect("loop");
            let slot = self.carried_slot(b).expect("a loop index is carried");
            let wire = &self.binding(b).wire;
            attempt(quote!(#rt::counter(&#slot, #wire)))
        });
        quote!(&::std::format!(#scheme, #(#counters),*))
    }

    /// Whether a held binding goes back into a slot at an arm's end: not a refilled parameter,
    /// which the next arm takes again from the request.
    fn parks(&self, b: BindingId, held: &Held) -> bool {
        held.contains(&b) && self.plan.refill_of(b).is_none()
    }

    /// `park` run at a point where bindings of the same names hide the parked ones: a
    /// `macro_rules!` named `name`, to define while they are in scope, and its invocation for
    /// that point (a macro's body names the locals visible where it is defined).
    fn deferred_park(name: Ident, park: TokenStream) -> (TokenStream, TokenStream) {
        (
            quote!(macro_rules! #name { () => { #park } }),
            quote!(#name!();),
        )
    }

    fn park(&self, live: &Live, held: &Held) -> TokenStream {
        let parks = live.iter().filter(|&&b| self.parks(b, held)).map(|&b| {
            let slot = self.slot(b);
            let local = self.local(b);
            quote!(#slot = ::core::option::Option::Some(#local);)
        });
        quote!(#(#parks)*)
    }

    /// The parks of an `ask!`: each local is named with the ask's span, so that a local the
    /// body has partly moved (`let id = plan.id;`) is reported where the ask saves it.
    fn park_at_ask(&self, site: SiteId, held: &Held) -> TokenStream {
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

    fn goto(&self, arm: Arm) -> TokenStream {
        let pc = self.pc(arm);
        quote! {
            __mrtr_pc = #pc;
            continue '__mrtr_dispatch;
        }
    }

    fn latch(&self, c: ConstructId, held: &Held) -> TokenStream {
        let construct = &self.body.constructs[c];
        let counter = construct.kind.counter().expect("loop");
        let bump = if held.contains(&counter) {
            let local = self.local(counter);
            quote!(#local += 1;)
        } else {
            quote!()
        };
        let park = self.park(&construct.live_head, held);
        let goto = self.goto(Arm::Head(c));
        quote!(#bump #park #goto)
    }

    fn exit(&self, c: ConstructId, value: Option<TokenStream>, held: &Held) -> TokenStream {
        let construct = &self.body.constructs[c];
        let store = match value {
            Some(value) if construct.has_value => {
                let t = Self::transfer(c);
                quote!(#t = ::core::option::Option::Some(#value);)
            }
            Some(value) => quote!(let _ = #value;),
            // A `while`/`for` loop, a `break;` or an `if` without `else` whose value is bound:
            // the value is `()`, and the join still takes it out of the transfer slot.
            None if construct.has_value => {
                let t = Self::transfer(c);
                quote!(#t = ::core::option::Option::Some(());)
            }
            None => quote!(),
        };
        let park = self.park(&construct.live_join, held);
        let goto = self.goto(Arm::Join(c));
        quote!(#store #park #goto)
    }

    /// The code of a jump to an opened loop, and what must be defined before the statement
    /// it sits in (see [`JumpFiller`]).
    fn jump(&self, jump: usize, held: &Held) -> (TokenStream, TokenStream) {
        let jump = &self.body.jumps[jump];
        match &jump.kind {
            JumpKind::Continue => {
                let latch = self.latch(jump.target, held);
                (TokenStream::new(), quote!({ #latch }))
            }
            JumpKind::Break(value) => {
                let (prelude, value) = self.fill_jumps_opt(value.as_ref(), held);
                let exit = self.exit(jump.target, value.map(|v| quote!(#v)), held);
                (prelude, quote!({ #exit }))
            }
        }
    }

    /// Each `fill_jumps_*` returns the item with its jumps filled in, and a prelude to emit
    /// right before the statement the item belongs to.
    fn fill_jumps_expr(&self, mut expr: Expr, held: &Held) -> (TokenStream, Expr) {
        let mut filler = JumpFiller::new(self, held);
        filler.visit_expr_mut(&mut expr);
        (filler.prelude, expr)
    }

    fn fill_jumps_opt(&self, expr: Option<&Expr>, held: &Held) -> (TokenStream, Option<Expr>) {
        match expr {
            Some(e) => {
                let (prelude, e) = self.fill_jumps_expr(e.clone(), held);
                (prelude, Some(e))
            }
            None => (TokenStream::new(), None),
        }
    }

    fn fill_jumps_stmt(&self, mut stmt: syn::Stmt, held: &Held) -> (TokenStream, syn::Stmt) {
        let mut filler = JumpFiller::new(self, held);
        filler.visit_stmt_mut(&mut stmt);
        (filler.prelude, stmt)
    }

    fn fill_jumps_block(&self, mut block: syn::Block, held: &Held) -> (TokenStream, syn::Block) {
        let mut filler = JumpFiller::new(self, held);
        filler.visit_block_mut(&mut block);
        (filler.prelude, block)
    }

    /// Held bindings a new binding of the same name hides while they are still needed later.
    fn shadowed(&self, defs: &[BindingId], live_out: &Live, held: &Held) -> Vec<BindingId> {
        held.iter()
            .copied()
            .filter(|b| !defs.contains(b) && live_out.contains(b))
            .filter(|&b| {
                defs.iter()
                    .any(|&d| self.binding(d).ident == self.binding(b).ident)
            })
            .collect()
    }

    /// The code of `frame` from statement `from` on, until every path has jumped, suspended or
    /// returned.
    fn run(&self, frame: FrameId, from: usize, mut held: Held) -> TokenStream {
        let mut out = TokenStream::new();
        let f = &self.body.frames[frame];
        for node in &f.stmts[from..] {
            match &node.kind {
                NodeKind::Verbatim(stmt) => {
                    let (prelude, stmt) = self.fill_jumps_stmt(stmt.clone(), &held);
                    let hidden = self.shadowed(&node.defs, &node.live_out, &held);
                    out.extend(prelude);
                    out.extend(self.verbatim_with_parks(stmt, &hidden, &held));
                    out.extend(node.defs.iter().filter_map(|&b| self.type_witness(b)));
                    for b in hidden {
                        held.remove(&b);
                    }
                    held.extend(node.defs.iter().copied());
                    held.extend(node.kills.iter().copied());
                    if node.diverges {
                        return out;
                    }
                }
                NodeKind::Ask { site, .. } => {
                    out.extend(self.suspend(*site, &held));
                    return out;
                }
                NodeKind::Opened { construct, .. } => {
                    out.extend(self.enter(*construct, &held));
                    return out;
                }
            }
        }
        out.extend(self.frame_exit(frame, &held));
        out
    }

    fn verbatim_with_parks(
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

    fn frame_exit(&self, frame: FrameId, held: &Held) -> TokenStream {
        let f = &self.body.frames[frame];
        let (prelude, tail) = self.fill_jumps_opt(f.tail.as_ref(), held);
        let rt = rt();
        if f.tail_diverges
            && let Some(tail) = tail
        {
            return quote!(#prelude #tail;);
        }
        let exit = match f.exit {
            FrameExit::Return => {
                let ret = self.ret;
                match tail {
                    Some(tail) => quote!(return #rt::done::<#ret>(#tail);),
                    None => quote! {
                        return ::core::result::Result::Ok(#rt::Flow::Fail(#rt::MrtrError::Internal(
                            ::std::string::String::from("a lowered handler fell off the end of its body"),
                        )));
                    },
                }
            }
            FrameExit::Join(c) => self.exit(c, tail.map(|t| quote!(#t)), held),
            FrameExit::Latch(c) => {
                let tail = tail.map(|t| quote!(let _ = #t;));
                let latch = self.latch(c, held);
                quote!(#tail #latch)
            }
        };
        quote!(#prelude #exit)
    }

    /// An `ask!` reached in this arm: evaluate the requests, register them, park, go resume.
    fn suspend(&self, site: SiteId, held: &Held) -> TokenStream {
        let s = &self.body.sites[site];
        let path = &s.path;
        let mut out = quote!(#path!(@lowered););
        if let [key] = &s.keys[..] {
            let (prelude, request) = self.fill_jumps_expr(key.request.clone(), held);
            out.extend(prelude);
            let marker = Self::marker(&key.key);
            let wire = self.key_at_ask(site, &key.key);
            let span = key.key.span();
            let request = quote_spanned! {span=>
                {
                    #[allow(unused_imports)]
                    use ::mrtr::__private::requests::*;
                    #request
                }
            };
            out.extend(quote!(#marker = __mrtr_io.ask(#wire, #request);));
            out.extend(self.park_at_ask(site, held));
            out.extend(self.goto(Arm::Resume(site)));
            return out;
        }
        // Every request of the round is built before any is registered, in source order.
        for (i, key) in s.keys.iter().enumerate() {
            let (prelude, request) = self.fill_jumps_expr(key.request.clone(), held);
            out.extend(prelude);
            let r = format_ident!("__mrtr_r{}", i);
            let span = key.key.span();
            out.extend(quote_spanned! {span=>
                let #r = {
                    #[allow(unused_imports)]
                    use ::mrtr::__private::requests::*;
                    #request
                };
            });
        }
        for (i, key) in s.keys.iter().enumerate() {
            let r = format_ident!("__mrtr_r{}", i);
            let marker = Self::marker(&key.key);
            let wire = self.key_at_ask(site, &key.key);
            out.extend(quote!(#marker = __mrtr_io.ask(#wire, #r);));
        }
        out.extend(self.park_at_ask(site, held));
        out.extend(self.goto(Arm::Resume(site)));
        out
    }

    /// The code of a branch or arm entered inline, and what to define before the construct.
    ///
    /// Its pattern (`if let Some(v)`, a match arm's `Ok(v)`) can hide a held binding of the same
    /// name that the code after the construct still needs; that binding is parked first, through
    /// a `macro_rules!` defined before the construct, where the outer binding is in scope (the
    /// scrutinee may still read it), and invoked as the branch starts.
    fn enter_frame(&self, frame: FrameId, held: &Held) -> (TokenStream, TokenStream) {
        let f = &self.body.frames[frame];
        let hidden: Held = held
            .iter()
            .copied()
            .filter(|b| !f.start.contains(b) && f.live_in.contains(b))
            .filter(|&b| {
                f.start
                    .iter()
                    .any(|&s| self.binding(s).ident == self.binding(b).ident)
            })
            .filter(|&b| self.parks(b, held))
            .collect();
        let mut inner: Held = held.difference(&hidden).copied().collect();
        inner.extend(f.start.iter().copied());
        let code = self.run(frame, 0, inner);
        if hidden.is_empty() {
            return (TokenStream::new(), code);
        }
        let name = format_ident!("__mrtr_hide_f{}", frame);
        let (define, invoke) = Self::deferred_park(name, self.park(&hidden, held));
        (define, quote!(#invoke #code))
    }

    /// Reaching an opened construct: its ask-free parts run here, the rest in its own arms.
    fn enter(&self, c: ConstructId, held: &Held) -> TokenStream {
        let construct = &self.body.constructs[c];
        let rt = rt();
        match &construct.kind {
            ConstructKind::If {
                branches,
                otherwise,
                ..
            } => {
                let mut preludes = TokenStream::new();
                let mut out = TokenStream::new();
                for (i, (cond, frame)) in branches.iter().enumerate() {
                    let (prelude, cond) = self.fill_jumps_expr(cond.clone(), held);
                    preludes.extend(prelude);
                    let (define, code) = self.enter_frame(*frame, held);
                    preludes.extend(define);
                    if i > 0 {
                        out.extend(quote!(else));
                    }
                    out.extend(quote!(if #cond { #code }));
                }
                let otherwise = match otherwise {
                    Some(frame) => self.run(*frame, 0, held.clone()),
                    None => self.exit(c, None, held),
                };
                out.extend(quote!(else { #otherwise }));
                quote!(#preludes #out)
            }
            ConstructKind::Match {
                scrutinee, arms, ..
            } => {
                let (mut preludes, scrutinee) = self.fill_jumps_expr(scrutinee.clone(), held);
                let mut code_arms = Vec::new();
                for (pat, frame) in arms {
                    let mut pat = pat.clone();
                    if let syn::Pat::Guard(guard) = &mut pat {
                        let (prelude, filled) = self.fill_jumps_expr((*guard.guard).clone(), held);
                        preludes.extend(prelude);
                        *guard.guard = filled;
                    }
                    let (define, code) = self.enter_frame(*frame, held);
                    preludes.extend(define);
                    code_arms.push(quote!(#pat => { #code }));
                }
                quote!(#preludes match #scrutinee { #(#code_arms)* })
            }
            ConstructKind::Block(frame) => {
                let code = self.run(*frame, 0, held.clone());
                quote!({ #code })
            }
            ConstructKind::Loop { counter, .. } | ConstructKind::While { counter, .. } => {
                let local = self.local(*counter);
                let mut inner = held.clone();
                inner.insert(*counter);
                let park = self.park(&construct.live_head, &inner);
                let goto = self.goto(Arm::Head(c));
                quote!(let mut #local: usize = 0; #park #goto)
            }
            ConstructKind::For {
                iter,
                rest,
                counter,
                ..
            } => {
                let (prelude, iter) = self.fill_jumps_expr(iter.clone(), held);
                let rest_local = self.local(*rest);
                let counter_local = self.local(*counter);
                let mut inner = held.clone();
                inner.insert(*counter);
                inner.insert(*rest);
                let park = self.park(&construct.live_head, &inner);
                let goto = self.goto(Arm::Head(c));
                quote! {
                    #prelude
                    let mut #rest_local = #rt::rest_of(#iter);
                    let mut #counter_local: usize = 0;
                    #park #goto
                }
            }
        }
    }

    /// `let PAT = ..;` of a refilled parameter: the value rmcp extracted if no arm took it yet,
    /// else the same parameter again from the request (`params.rs`).
    fn refill(&self, r: &super::params::Refilled) -> TokenStream {
        let pat = &r.pat;
        let source = format_ident!("__mrtr_src{}", r.arg);
        let again = if r.from_arguments {
            attempt(quote!(__mrtr_io.reparse()))
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
    fn at_point(
        &self,
        frame: FrameId,
        index: usize,
        runs_from: usize,
        assigned_first: &Live,
        live: &Live,
        inner: impl FnOnce(Held) -> TokenStream,
    ) -> TokenStream {
        let rt = rt();
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
                        .map(|&(_, b)| {
                            let binding = self.binding(b);
                            let local = self.local(b);
                            let slot = self.slot(b);
                            let wire = &binding.wire;
                            let mutability = (binding.mutable
                                || binding.kind != BindingKind::Local
                                    && binding.kind != BindingKind::Param)
                                .then(|| quote!(mut));
                            let value = attempt(quote!(#rt::out(&mut #slot, #wire)));
                            quote!(#[allow(unused_mut)] let #mutability #local = #value;)
                        }),
                )
                .collect();
            levels.push(refills.into_iter().chain(outs).collect::<Vec<_>>());
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
    fn assigned_in_run(&self, frame: FrameId, from: usize, out: &mut Live) {
        let f = &self.body.frames[frame];
        for node in &f.stmts[from..] {
            match &node.kind {
                NodeKind::Verbatim(_) => out.extend(node.writes.iter().copied()),
                NodeKind::Ask { .. } => return,
                NodeKind::Opened { construct, .. } => {
                    if !self.body.constructs[*construct].kind.is_loop() {
                        for child in
                            super::lower::child_frames(&self.body.constructs[*construct].kind)
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

    fn arm(&self, arm: Arm) -> TokenStream {
        let pc = self.pc(arm);
        let code = match arm {
            Arm::Start => self.at_point(ROOT, 0, 0, &Live::new(), &self.plan.start_live, |held| {
                self.run(ROOT, 0, held)
            }),
            Arm::Resume(site) => self.resume_arm(site),
            Arm::Join(c) => {
                let (frame, index) = self.plan.construct_at[c];
                let construct = &self.body.constructs[c];
                let node = &self.body.frames[frame].stmts[index];
                let NodeKind::Opened { pat, diverge, .. } = &node.kind else {
                    unreachable!()
                };
                let rt = rt();
                self.at_point(
                    frame,
                    index,
                    index + 1,
                    &Live::new(),
                    &construct.live_join,
                    |mut held| {
                        let bind = match pat {
                            Some(pat) if construct.has_value => {
                                let t = Self::transfer(c);
                                let wire = format!(
                                    "value of the `{}` at this join",
                                    if construct.kind.is_loop() {
                                        "loop"
                                    } else {
                                        "branch"
                                    }
                                );
                                let value = attempt(quote!(#rt::out(&mut #t, #wire)));
                                self.bind(pat, quote!(#value), diverge.as_ref(), node, &mut held)
                            }
                            _ => quote!(),
                        };
                        let rest = self.run(frame, index + 1, held);
                        quote!(#bind #rest)
                    },
                )
            }
            Arm::Head(c) => self.head_arm(c),
        };
        quote!(#pc => { #code })
    }

    /// `let P = value [else D];`, parking held bindings the pattern hides that are needed later.
    fn bind(
        &self,
        pat: &syn::Pat,
        value: TokenStream,
        diverge: Option<&syn::Block>,
        node: &Node,
        held: &mut Held,
    ) -> TokenStream {
        let hidden = self.shadowed(&node.defs, &node.live_out, held);
        let park = self.park(&hidden.iter().copied().collect(), held);
        // The `else` block still sees the hidden bindings (the pattern binds nothing there), and
        // a jump in it parks them itself.
        let (prelude, diverge) = match diverge {
            Some(d) => {
                let (prelude, d) = self.fill_jumps_block(d.clone(), held);
                (prelude, Some(quote!(else #d)))
            }
            None => (TokenStream::new(), None),
        };
        for b in &hidden {
            held.remove(b);
        }
        held.extend(node.defs.iter().copied());
        let binding = match (park.is_empty(), diverge) {
            (true, diverge) => quote!(let #pat = #value #diverge;),
            // Parked once the pattern matched, through a macro defined while they are in scope
            // (see `verbatim_with_parks`).
            (false, Some(diverge)) => {
                let name = format_ident!("__mrtr_hide_{}", hidden[0]);
                let (define, invoke) = Self::deferred_park(name, park);
                quote!(#define let #pat = #value #diverge; #invoke)
            }
            // Parks go between computing the value and binding it (the pattern hides them).
            (false, None) => quote!(let __mrtr_v = #value; #park let #pat = __mrtr_v;),
        };
        quote!(#prelude #binding)
    }

    fn head_arm(&self, c: ConstructId) -> TokenStream {
        let construct = &self.body.constructs[c];
        let (frame, _) = match &construct.kind {
            ConstructKind::Loop { body, .. }
            | ConstructKind::While { body, .. }
            | ConstructKind::For { body, .. } => (*body, ()),
            _ => unreachable!(),
        };
        self.at_point(frame, 0, 0, &Live::new(), &construct.live_head, |mut held| {
            let start = &self.body.frames[frame].start;
            let gate = match &construct.kind {
                ConstructKind::For { pat, rest, .. } => {
                    let exit = self.exit(c, None, &held);
                    let rest = self.local(*rest);
                    quote!(let ::core::option::Option::Some(#pat) = #rest.pop_front() else { #exit };)
                }
                ConstructKind::While { cond: Expr::Let(l), .. } => {
                    let exit = self.exit(c, None, &held);
                    let (prelude, cond) = self.fill_jumps_expr((*l.expr).clone(), &held);
                    let pat = &l.pat;
                    quote!(#prelude let #pat = #cond else { #exit };)
                }
                ConstructKind::While { cond, .. } => {
                    let exit = self.exit(c, None, &held);
                    let (prelude, cond) = self.fill_jumps_expr(cond.clone(), &held);
                    quote!(#prelude if !(#cond) { #exit })
                }
                _ => quote!(),
            };
            held.extend(start.iter().copied());
            let body = self.run(frame, 0, held);
            quote!(#gate #body)
        })
    }

    fn resume_arm(&self, site: SiteId) -> TokenStream {
        let s = &self.body.sites[site];
        let (frame, index) = self.plan.site_at[site];
        let node = &self.body.frames[frame].stmts[index];
        let NodeKind::Ask {
            pat,
            diverge,
            assign,
            ..
        } = &node.kind
        else {
            unreachable!()
        };

        let answers: Vec<Ident> = (0..s.keys.len())
            .map(|i| format_ident!("__mrtr_a{}", i))
            .collect();
        let takes = s.keys.iter().zip(&answers).map(|(key, a)| {
            let marker = Self::marker(&key.key);
            let wire = self.key_at_resume(site, &key.key);
            quote!(let #a = __mrtr_io.take(&#marker, #wire);)
        });
        let oks = answers
            .iter()
            .map(|a| quote!(::core::result::Result::Ok(#a)));
        // A missing answer leaves the dispatch loop with the step's index: the code after the
        // loop awaits a legacy client or seals the step, once for every step.
        let decode = if let [key] = &s.keys[..] {
            let marker = Self::marker(&key.key);
            let wire = self.key_at_resume(site, &key.key);
            quote! {
                let ::core::result::Result::Ok(__mrtr_a0) = __mrtr_io.take(&#marker, #wire) else {
                    break '__mrtr_dispatch #site;
                };
                __mrtr_io.settle();
            }
        } else {
            quote! {
                #(#takes)*
                let (#(#oks,)*) = (#(#answers,)*) else {
                    break '__mrtr_dispatch #site;
                };
                __mrtr_io.settle();
            }
        };
        let answer = if answers.len() == 1 {
            quote!(__mrtr_a0)
        } else {
            quote!((#(#answers),*))
        };
        let rest = self.at_point(frame, index, index + 1, &node.kills, &s.live, |mut held| {
            let bind = match (pat, assign) {
                (Some(pat), _) => self.bind(pat, answer, diverge.as_ref(), node, &mut held),
                (None, Some(b)) => {
                    held.insert(*b);
                    let local = self.local(*b);
                    let witness = self.type_witness(*b);
                    quote!(#local = #answer; #witness)
                }
                (None, None) => quote!(let _ = #answer;),
            };
            let rest = self.run(frame, index + 1, held);
            quote!(#bind #rest)
        });
        quote!(#decode #rest)
    }

    /// The whole lowered body; `open` is the expression that opens the round (`Io`).
    pub fn body_tokens(&self, open: TokenStream) -> TokenStream {
        let rt = rt();
        let items = &self.body.items;
        let slots = self
            .plan
            .slotted
            .iter()
            .filter(|b| !self.plan.carried.contains(b))
            .map(|&b| {
                let binding = self.binding(b);
                let slot = self.slot_local(b);
                let span = binding.ident.span();
                if binding.kind == BindingKind::Param {
                    let local = self.local(b);
                    quote_spanned!(span=> let mut #slot = ::core::option::Option::Some(#local);)
                } else if let Some(ty) = &binding.ty {
                    quote_spanned!(span=> let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;)
                } else {
                    quote_spanned!(span=> let mut #slot = ::core::option::Option::None;)
                }
            });
        let sources = self.plan.refilled.iter().map(|r| {
            let param = format_ident!("__mrtr_p{}", r.arg);
            let source = format_ident!("__mrtr_src{}", r.arg);
            let keep = (!r.from_arguments).then(|| {
                let kept = format_ident!("__mrtr_keep{}", r.arg);
                let span = syn::spanned::Spanned::span(&r.ty);
                quote_spanned!(span=> let #kept = ::core::clone::Clone::clone(&#param);)
            });
            quote!(#keep let mut #source = ::core::option::Option::Some(#param);)
        });
        // Each carried slot is made where its `Carry` bound is checked, at the user's binding.
        let carried: Vec<TokenStream> = self
            .plan
            .carried
            .iter()
            .map(|&b| {
                let binding = self.binding(b);
                let span = binding.ident.span();
                // Spelled out (not `#rt`) so that every token of the call carries the span.
                match &binding.ty {
                    Some(ty) => quote_spanned!(span=> ::mrtr::__private::slot::<#ty>()),
                    None => quote_spanned!(span=> ::mrtr::__private::slot()),
                }
            })
            .collect();
        let carried = if carried.len() <= TUPLE {
            quote!((#(#carried,)*))
        } else {
            let chunks = carried.chunks(TUPLE).map(|chunk| quote!((#(#chunk,)*)));
            quote!((#(#chunks,)*))
        };
        let transfers = self
            .body
            .constructs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.has_value)
            .map(|(i, _)| {
                let t = Self::transfer(i);
                let (frame, index) = self.plan.construct_at[i];
                let span = match &self.body.frames[frame].stmts[index].kind {
                    NodeKind::Opened { pat: Some(pat), .. } => syn::spanned::Spanned::span(pat),
                    _ => Span::call_site(),
                };
                // rmcp boxes a handler's future as `Send` unless the tool is `local`.
                let spanned = Ident::new(&t.to_string(), span);
                let check = (!self.local)
                    .then(|| quote_spanned!(span=> ::mrtr::__private::transfer_slot(&#spanned);));
                quote!(let mut #t = ::core::option::Option::None; #check)
            });
        let markers = self.body.sites.iter().flat_map(|s| &s.keys).map(|k| {
            let m = Self::marker(&k.key);
            quote!(let mut #m = ::core::marker::PhantomData;)
        });
        let witnesses = self.plan.typed_by_ask.iter().map(|b| {
            let witness = format_ident!("__mrtr_ty_{}", b);
            quote!(let mut #witness = ::core::marker::PhantomData;)
        });
        let open = attempt(open);
        let start = self.pc(Arm::Start);
        let restore = attempt(quote!(__mrtr_io.restore(&mut __mrtr_c, #start)));
        let ask_live = attempt(quote!(__mrtr_io.ask_live().await));
        let arms = self.plan.arms.iter().map(|&arm| self.arm(arm));
        let suspended = if self.body.sites.is_empty() {
            // No `ask!`: the dispatch loop only ends by returning.
            quote!(match __mrtr_step {})
        } else {
            quote! {
                if __mrtr_io.is_live() {
                    #ask_live;
                    __mrtr_pc = __mrtr_io.resume_pc(__mrtr_step);
                    continue;
                }
                return ::core::result::Result::Ok(__mrtr_io.suspend(&mut __mrtr_c, __mrtr_step));
            }
        };
        let step_type = if self.body.sites.is_empty() {
            quote!(::core::convert::Infallible)
        } else {
            quote!(usize)
        };
        quote! {
            #(#items)*
            let mut __mrtr_io = #open;
            #(#sources)*
            #(#slots)*
            let mut __mrtr_c = #carried;
            #(#transfers)*
            #(#markers)*
            #(#witnesses)*
            let mut __mrtr_pc: u32 = #restore;
            loop {
                let __mrtr_step: #step_type = '__mrtr_dispatch: loop {
                    match __mrtr_pc {
                        #(#arms)*
                        _ => return ::core::result::Result::Ok(#rt::Flow::Fail(#rt::no_arm())),
                    }
                };
                #suspended
            }
        }
    }
}

/// Carried slots per tuple: the runtime implements `Slots` for tuples up to this size; more are
/// nested as a tuple of tuples.
const TUPLE: usize = 12;

/// Replaces `__mrtr_jump!(n)` placeholders with the jump's code under the current held set.
///
/// A jump under a binding that hides a held one (`if let Some(item) = .. { break }` with an
/// outer `item` to park) cannot name the outer binding. Its park goes into a `macro_rules!`
/// defined before the statement, where the outer binding is the one in scope: a macro's body
/// names the locals visible at its definition (macro hygiene), so invoking it at the jump
/// parks the right value.
struct JumpFiller<'g, 'a> {
    machine: &'g Gen<'a>,
    held: &'g Held,
    /// Names bound inside the statement around the placeholder being visited.
    inner: Vec<Vec<String>>,
    /// The park macros of hidden bindings, for before the statement.
    prelude: TokenStream,
}

impl<'g, 'a> JumpFiller<'g, 'a> {
    fn new(machine: &'g Gen<'a>, held: &'g Held) -> Self {
        JumpFiller {
            machine,
            held,
            inner: Vec::new(),
            prelude: TokenStream::new(),
        }
    }
}

impl JumpFiller<'_, '_> {
    fn scoped(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        self.inner.push(names);
        f(self);
        self.inner.pop();
    }

    /// Bindings the jump parks whose names a binding around the jump hides.
    fn hidden_parks(&self, jump: usize) -> Held {
        let j = &self.machine.body.jumps[jump];
        let construct = &self.machine.body.constructs[j.target];
        let target = match j.kind {
            JumpKind::Break(_) => &construct.live_join,
            JumpKind::Continue => &construct.live_head,
        };
        target
            .iter()
            .copied()
            .filter(|&b| self.machine.parks(b, self.held))
            .filter(|&b| {
                let name = self.machine.binding(b).ident.to_string();
                self.inner.iter().flatten().any(|n| *n == name)
            })
            .collect()
    }
}

impl VisitMut for JumpFiller<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr
            && m.mac.path.is_ident("__mrtr_jump")
            && let Ok(lit) = m.mac.parse_body::<syn::LitInt>()
            && let Ok(id) = lit.base10_parse::<usize>()
        {
            let hidden = self.hidden_parks(id);
            let code = if hidden.is_empty() {
                let (prelude, code) = self.machine.jump(id, self.held);
                self.prelude.extend(prelude);
                code
            } else {
                let name = format_ident!("__mrtr_park_{}", id);
                let park = self.machine.park(&hidden, self.held);
                let (define, invoke) = Gen::deferred_park(name, park);
                self.prelude.extend(define);
                let visible: Held = self.held.difference(&hidden).copied().collect();
                let (prelude, code) = self.machine.jump(id, &visible);
                self.prelude.extend(prelude);
                quote!({ #invoke #code })
            };
            *expr = syn::parse_quote!(#code);
            return;
        }
        match expr {
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::If(e) if matches!(*e.cond, Expr::Let(_)) => {
                self.visit_expr_mut(&mut e.cond);
                let names = super::uses::let_bindings(&e.cond);
                self.scoped(names, |this| this.visit_block_mut(&mut e.then_branch));
                if let Some((_, otherwise)) = &mut e.else_branch {
                    self.visit_expr_mut(otherwise);
                }
            }
            Expr::ForLoop(e) => {
                self.visit_expr_mut(&mut e.expr);
                let names = names_of(&e.pat);
                self.scoped(names, |this| this.visit_block_mut(&mut e.body));
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.scoped(Vec::new(), |this| {
            for stmt in &mut block.stmts {
                this.visit_stmt_mut(stmt);
                if let syn::Stmt::Local(local) = stmt {
                    let names = names_of(&local.pat);
                    this.inner.last_mut().expect("scope").extend(names);
                }
            }
        });
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let names = names_of(&arm.pat);
        self.scoped(names, |this| visit_mut::visit_arm_mut(this, arm));
    }
}

fn names_of(pat: &syn::Pat) -> Vec<String> {
    super::patterns::bound_idents(pat)
        .into_iter()
        .map(|(i, _)| i.to_string())
        .collect()
}
