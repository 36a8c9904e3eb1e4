//! Emits the lowered body from the IR and the plan: hoisted slots, the resume prologue, and the
//! `'__mrtr_dispatch: loop { match pc { .. } }` with one arm per resume point, join, loop head
//! and loop exit. Nothing here re-analyses syntax: what is live, where each arm starts and which
//! jumps leave which loop were decided before.
//!
//! The generated code is kept lean on purpose: it is compiled once per handler, so saving and
//! restoring a step is one runtime call over the slot tuple (`Io::restore`, `Io::suspend`), a
//! body that awaits nothing of its own is a step function with no `.await` at all (its waits
//! are the runtime's, `stepped.rs`), and in an `async fn` body the one `.await` the machine adds
//! (the legacy client round) sits outside the dispatch loop.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::ir::*;
use super::parse::Handler;
use super::plan::{Arm, Plan};
use super::returns::Returns;

mod arms;
mod flow;
mod jumps;
mod slots;
mod steps;

pub struct Gen<'a> {
    pub body: &'a Body,
    pub plan: &'a Plan,
    /// How the body returns its user code's value.
    pub returns: &'a Returns,
    pub fn_name: &'a Ident,
    /// `#[tool(local)]`: the handler's future need not be `Send`.
    pub local: bool,
    pub machine: Machine,
    /// Set while the start arm is generated: it runs before the dispatch loop (see
    /// `dispatch`), so its jumps leave the `'__mrtr_start` block instead of continuing the loop.
    pub(super) in_start: std::cell::Cell<bool>,
    /// Whether the start arm leaves its block anywhere (else the label would go unused).
    pub(super) start_jumps: std::cell::Cell<bool>,
}

/// What kind of machine the body is: it decides how a round starts and how a step ends.
pub enum Machine {
    /// Opens its round from the request and ends a step by sealing the continuation.
    Handler,
    /// Entered by a caller with an `Entry`; ends a step by handing the caller its frame. The
    /// path of its `Handler` table (steps and fingerprints).
    Helper { table: TokenStream },
}

impl<'a> Gen<'a> {
    pub fn new(body: &'a Body, plan: &'a Plan, handler: &'a Handler<'a>) -> Self {
        Gen {
            body,
            plan,
            returns: &handler.returns,
            fn_name: &handler.method.sig.ident,
            local: handler.local,
            machine: Machine::Handler,
            in_start: std::cell::Cell::new(false),
            start_jumps: std::cell::Cell::new(false),
        }
    }
}

type Held = BTreeSet<BindingId>;

fn rt() -> TokenStream {
    crate::runtime()
}

impl Gen<'_> {
    /// Leaves the arm once the runtime has kept a failure in `Io`: `step` is the runtime call
    /// that keeps it (and names the step to leave with). In the dispatch loop that is a
    /// `break` to the step exit, which reports the failure: one cheap jump per site instead of
    /// a `Result` matched and returned in the user's lifted type. A body without `ask!` has no
    /// loop to leave and returns the failure.
    pub(super) fn bail(&self, step: TokenStream) -> TokenStream {
        if self.in_start.get() {
            // Before the loop: to the arm-less counter, whose arm leaves for the step exit.
            self.start_jumps.set(true);
            return quote!({
                let _ = #step;
                __mrtr_pc = ::core::primitive::u32::MAX;
                break '__mrtr_start;
            });
        }
        if self.body.sites.is_empty() {
            let fail = self.fail(quote!(__mrtr_io.failure()));
            quote!({ let _ = #step; #fail })
        } else {
            quote!(break '__mrtr_dispatch #step)
        }
    }

    /// A parked value moved out of its slot (`&mut Option<T>`); an empty slot, a lowering
    /// bug, fails the round as an error naming it (never a panic).
    pub(super) fn taken(&self, slot: TokenStream, wire: &str) -> TokenStream {
        self.or_bail(quote!(#slot.take()), quote!(__mrtr_io.lost(#wire)))
    }

    /// The value of `option`, or [`bail`](Self::bail) through `step` when it is `None`.
    pub(super) fn or_bail(&self, option: TokenStream, step: TokenStream) -> TokenStream {
        let bail = self.bail(step);
        quote! {
            match #option {
                ::core::option::Option::Some(__mrtr_v) => __mrtr_v,
                ::core::option::Option::None => #bail,
            }
        }
    }

    /// `return` of a runtime error, outside `attempt`.
    pub(super) fn fail(&self, error: TokenStream) -> TokenStream {
        let rt = rt();
        match self.machine {
            Machine::Handler => {
                quote!(return ::core::result::Result::Ok(#rt::Flow::Fail(#error)))
            }
            Machine::Helper { .. } => quote!(return #rt::fail(#error)),
        }
    }
}

impl Gen<'_> {
    pub(super) fn binding(&self, b: BindingId) -> &Binding {
        &self.body.bindings[b]
    }
    pub(super) fn local(&self, b: BindingId) -> Ident {
        self.binding(b).ident.clone()
    }
    /// The request builders, in scope around each request so that `elicit::<T>(..)` needs no
    /// import.
    pub(super) fn requests(span: Span) -> TokenStream {
        let rt = crate::runtime_at(span);
        quote_spanned!(span=> #rt::requests)
    }
    pub(super) fn transfer(c: ConstructId) -> Ident {
        format_ident!("__mrtr_t{}", c)
    }
    pub(super) fn marker(key: &Ident) -> Ident {
        format_ident!("__mrtr_m_{}", key)
    }
    /// A helper site's `Call`, from the arm that reaches the site to its resume arm.
    pub(super) fn helper_call(key: &Ident) -> Ident {
        format_ident!("__mrtr_h_{}", key)
    }
    /// Where a step function's helper site finds its callee's value (`Mailbox`).
    pub(super) fn mailbox(key: &Ident) -> Ident {
        format_ident!("__mrtr_x_{}", key)
    }
    /// Slots in the carried tuple: the carried locals, then one frame per helper site.
    pub(super) fn carried_count(&self) -> usize {
        self.plan.carried.len() + self.plan.frames.len()
    }
    /// The program counter's value for an arm: its index, as a literal (a named constant or an
    /// enum per arm would be more items for rustc to check, in every handler).
    pub(super) fn pc(&self, arm: Arm) -> TokenStream {
        let index = self
            .plan
            .arms
            .iter()
            .position(|a| a == &arm)
            .expect("every arm is planned") as u32;
        quote!(#index)
    }
    pub(super) fn goto(&self, arm: Arm) -> TokenStream {
        let pc = self.pc(arm);
        if self.in_start.get() {
            self.start_jumps.set(true);
            return quote! {
                __mrtr_pc = #pc;
                break '__mrtr_start;
            };
        }
        quote! {
            __mrtr_pc = #pc;
            continue '__mrtr_dispatch;
        }
    }
    /// The whole lowered body, on the round's `__mrtr_io` (a handler's is opened by `respond`,
    /// a helper is handed its caller's).
    pub fn body_tokens(&self) -> TokenStream {
        let items = &self.body.items;
        let (sources, slots) = (self.refill_sources(), self.slot_decls());
        let carried = self.carried_tuple();
        let transfers = self.transfer_decls();
        let markers = self.body.sites.iter().flat_map(|s| &s.keys).map(|k| {
            if k.helper.is_some() {
                let call = Self::helper_call(&k.key);
                return quote!(let mut #call = ::core::option::Option::None;);
            }
            let m = Self::marker(&k.key);
            quote!(let mut #m = ::core::marker::PhantomData;)
        });
        let witnesses = self.plan.typed_by_ask.iter().map(|b| {
            let witness = format_ident!("__mrtr_ty_{}", b);
            quote!(let mut #witness = ::core::marker::PhantomData;)
        });
        let mailboxes = self.plan.stepped.then(|| {
            let rt = rt();
            let boxes = self
                .body
                .sites
                .iter()
                .flat_map(|s| &s.keys)
                .filter(|k| k.helper.is_some());
            let boxes = boxes.map(|k| Self::mailbox(&k.key));
            quote!(#(let mut #boxes = const { #rt::Mailbox::new() };)*)
        });
        let dispatch = self.dispatch();
        quote! {
            #mailboxes
            #(#items)*
            #(#sources)*
            #(#slots)*
            let mut __mrtr_c = #carried;
            #(#transfers)*
            #(#markers)*
            #(#witnesses)*
            #dispatch
        }
    }

    /// The dispatch loop: one arm per program counter value, left with a step's index when an
    /// answer is missing; then the legacy client is asked and the loop goes on, or the round
    /// suspends at that step.
    fn dispatch(&self) -> TokenStream {
        let start = self.pc(Arm::Start);
        let start_pc = start.clone();
        // A refused state is kept in `Io` and starts the loop at no arm (see `bail`).
        let restore = match &self.machine {
            Machine::Handler => quote!(__mrtr_io.restore(&mut __mrtr_c, #start)),
            Machine::Helper { table } => quote! {
                __mrtr_io.restore_frame(const { &#table }, __mrtr_fresh, __mrtr_frame, &mut __mrtr_c, #start)
            },
        };
        let no_arm = self.bail(quote!(__mrtr_io.no_arm()));
        let no_arm = quote!(_ => #no_arm,);
        if self.body.sites.is_empty() {
            // No `ask!`: the start arm only ends by returning, so there is nothing to loop over.
            let arms = self.plan.arms.iter().map(|&arm| self.arm(arm));
            return quote! {
                let __mrtr_pc: u32 = #restore;
                match __mrtr_pc {
                    #(#arms)*
                    #no_arm
                }
            };
        }
        // The start arm runs once, before the loop: no jump ever leads back to it, and outside
        // the loop the parameters it alone uses are moved where the signature bound them
        // instead of going through a slot (a slot and its `take` per parameter, per handler).
        self.in_start.set(true);
        let start_code = self.arm_code(Arm::Start);
        self.in_start.set(false);
        let arms: Vec<TokenStream> = self
            .plan
            .arms
            .iter()
            .filter(|&&arm| arm != Arm::Start)
            .map(|&arm| self.arm(arm))
            .collect();
        let start = quote! {
            if __mrtr_pc == #start {
                #start_code
            }
        };
        let start = if self.start_jumps.get() {
            quote!('__mrtr_start: { #start })
        } else {
            start
        };
        let suspend = match &self.machine {
            Machine::Handler => quote!(::core::result::Result::Ok(
                __mrtr_io.suspend(&mut __mrtr_c, __mrtr_step)
            )),
            Machine::Helper { table } => self.returns.suspended(
                quote!(__mrtr_io.suspend_frame(const { &#table }, &mut __mrtr_c, __mrtr_step)),
            ),
        };
        let run_arms = quote! {
            let __mrtr_step: usize = '__mrtr_dispatch: loop {
                match __mrtr_pc {
                    #(#arms)*
                    #no_arm
                }
            };
        };
        if self.plan.stepped {
            // Every wait is the driver's: the loop's exit hands it the step, a helper site its
            // callee (see `stepped.rs`).
            let rt = rt();
            return quote! {
                let mut __mrtr_pc: u32 = #start_pc;
                let mut __mrtr_turn = const { #rt::Turn::new() };
                ::std::boxed::Box::new(move |mut __mrtr_io: #rt::Io, __mrtr_pause| {
                    __mrtr_pc = __mrtr_turn.pc(&mut __mrtr_io, &mut __mrtr_c, __mrtr_pc, #start_pc);
                    #start
                    #run_arms
                    __mrtr_turn.exit(__mrtr_io, &mut __mrtr_c, __mrtr_step, __mrtr_pause)
                })
            };
        }
        // A body whose every site enters a helper never waits for a legacy client itself: a
        // callee asks live inside its own machine and only suspends on 2026-07-28 (were one to
        // suspend live, `suspend` refuses it). No live round, no second `.await` to compile.
        if self.body.sites.iter().all(|s| s.helper().is_some()) {
            return quote! {
                let mut __mrtr_pc: u32 = #restore;
                #start
                #run_arms
                return #suspend;
            };
        }
        // A failed legacy round is kept in `Io`: the resume counter then has no arm.
        let ask_live = quote!(__mrtr_io.ask_live().await);
        let resume_pc = match &self.machine {
            Machine::Handler => quote!(__mrtr_io.resume_pc(__mrtr_step)),
            Machine::Helper { table } => {
                quote!(__mrtr_io.resume_pc_in(const { &#table }, __mrtr_step))
            }
        };
        quote! {
            let mut __mrtr_pc: u32 = #restore;
            #start
            loop {
                #run_arms
                if __mrtr_io.asks_live() {
                    #ask_live;
                    __mrtr_pc = #resume_pc;
                    continue;
                }
                return #suspend;
            }
        }
    }

    /// Hoisted slots of the bindings that cross an arm boundary but are never carried.
    fn slot_decls(&self) -> Vec<TokenStream> {
        self
            .plan
            .slotted
            .iter()
            .filter(|b| !self.plan.carried.contains(b))
            .map(|&b| {
                let binding = self.binding(b);
                let slot = self.slot_local(b);
                let span = binding.ident.span();
                // A resumed round finds its parameters (extracted afresh from the request)
                // in their slots.
                if binding.kind == BindingKind::Param {
                    let local = self.local(b);
                    quote_spanned!(span=> let mut #slot = ::core::option::Option::Some(#local);)
                } else if let Some(ty) = &binding.ty {
                    quote_spanned!(span=> let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;)
                } else {
                    quote_spanned!(span=> let mut #slot = ::core::option::Option::None;)
                }
            })
            .collect()
    }

    /// For each refilled parameter: the value rmcp extracted, for the first arm that binds it,
    /// and a copy to clone for later arms (or, for `Parameters<T>`, nothing: it is decoded
    /// again from the call's arguments).
    fn refill_sources(&self) -> Vec<TokenStream> {
        self.plan
            .refilled
            .iter()
            .map(|r| {
                let param = format_ident!("__mrtr_p{}", r.arg);
                let source = format_ident!("__mrtr_src{}", r.arg);
                let keep = (!r.from_arguments).then(|| {
                    let kept = format_ident!("__mrtr_keep{}", r.arg);
                    let span = syn::spanned::Spanned::span(&r.ty);
                    quote_spanned!(span=> let #kept = ::core::clone::Clone::clone(&#param);)
                });
                quote!(#keep let mut #source = ::core::option::Option::Some(#param);)
            })
            .collect()
    }

    /// The carried slots, as a tuple (of tuples, past [`TUPLE`]); each made where its `Carry`
    /// bound is checked, at the user's binding.
    fn carried_tuple(&self) -> TokenStream {
        let mut carried: Vec<TokenStream> = self
            .plan
            .carried
            .iter()
            .map(|&b| {
                let binding = self.binding(b);
                let span = binding.ident.span();
                // Every token of the call carries the span.
                let rt = crate::runtime_at(span);
                match &binding.ty {
                    Some(ty) => quote_spanned!(span=> #rt::slot::<#ty>()),
                    None => quote_spanned!(span=> #rt::slot()),
                }
            })
            .collect();
        let rt = rt();
        carried.extend(self.plan.frames.iter().map(|_| quote!(#rt::frame_slot())));
        // Built at compile time: empty slots, no call (and no unwinding path) per slot.
        if carried.is_empty() {
            quote!(())
        } else if carried.len() <= TUPLE {
            quote!(const { (#(#carried,)*) })
        } else {
            let chunks = carried.chunks(TUPLE).map(|chunk| quote!((#(#chunk,)*)));
            quote!(const { (#(#chunks,)*) })
        }
    }

    /// Transfer slots: the values of opened constructs on their way to the join.
    fn transfer_decls(&self) -> Vec<TokenStream> {
        self.body
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
                let check = (!self.local).then(|| {
                    let rt = crate::runtime_at(span);
                    quote_spanned!(span=> #rt::transfer_slot(&#spanned);)
                });
                quote!(let mut #t = ::core::option::Option::None; #check)
            })
            .collect()
    }
}

/// Carried slots per tuple: the runtime implements `Slots` for tuples up to this size; more are
/// nested as a tuple of tuples.
const TUPLE: usize = 12;
