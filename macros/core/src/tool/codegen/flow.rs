//! The code of one arm, statement by statement: ask-free statements as written, an `ask!`
//! suspending to its resume arm, an opened construct entered inline up to its own arms.

use super::*;

impl Gen<'_> {
    pub(super) fn latch(&self, c: ConstructId, held: &Held) -> TokenStream {
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

    pub(super) fn exit(
        &self,
        c: ConstructId,
        value: Option<TokenStream>,
        held: &Held,
    ) -> TokenStream {
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

    /// The code of `frame` from statement `from` on, until every path has jumped, suspended or
    /// returned.
    pub(super) fn run(&self, frame: FrameId, from: usize, mut held: Held) -> TokenStream {
        let mut out = TokenStream::new();
        let f = &self.body.frames[frame];
        for node in &f.stmts[from..] {
            match &node.kind {
                NodeKind::Verbatim(stmt) => {
                    let (prelude, stmt) = self.fill_jumps(stmt.clone(), &held);
                    let hidden = Self::held_of(&node.hides, &held);
                    out.extend(prelude);
                    let stmt = self.allow_split_mut(stmt, node);
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

    pub(super) fn frame_exit(&self, frame: FrameId, held: &Held) -> TokenStream {
        let f = &self.body.frames[frame];
        let (prelude, tail) = self.fill_jumps_opt(f.tail.as_ref(), held);
        let rt = rt();
        if f.tail_diverges
            && let Some(tail) = tail
        {
            return quote!(#prelude #tail;);
        }
        let exit = match f.exit {
            FrameExit::Return => match tail {
                Some(tail) => {
                    let done = self.returns.done(quote!(#tail));
                    quote!(return #done;)
                }
                None => {
                    let fail = self.fail(quote! {
                        #rt::MrtrError::Internal(
                            ::std::string::String::from("a lowered handler fell off the end of its body"),
                        )
                    });
                    quote!(#fail;)
                }
            },
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
    pub(super) fn suspend(&self, site: SiteId, held: &Held) -> TokenStream {
        let s = &self.body.sites[site];
        let path = &s.path;
        let mut out = quote!(#path!(@lowered););
        if let Some((key, _)) = s.helper() {
            // The helper's arguments are evaluated here, once; its resume arm enters it.
            let (prelude, call) = self.fill_jumps(key.request.clone(), held);
            out.extend(prelude);
            let slot = Self::helper_call(&key.key);
            out.extend(quote!(#slot = ::core::option::Option::Some(#call);));
            out.extend(self.park_at_ask(site, held));
            out.extend(self.goto(Arm::Resume(site)));
            return out;
        }
        if let [key] = &s.keys[..] {
            let (prelude, request) = self.fill_jumps(key.request.clone(), held);
            out.extend(prelude);
            let marker = Self::marker(&key.key);
            let wire = self.key_at_ask(site, &key.key);
            let span = key.key.span();
            let requests = Self::requests(span);
            let request = quote_spanned! {span=>
                {
                    #[allow(unused_imports)]
                    use #requests::*;
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
            let (prelude, request) = self.fill_jumps(key.request.clone(), held);
            out.extend(prelude);
            let r = format_ident!("__mrtr_r{}", i);
            let span = key.key.span();
            let requests = Self::requests(span);
            out.extend(quote_spanned! {span=>
                let #r = {
                    #[allow(unused_imports)]
                    use #requests::*;
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
    pub(super) fn enter_frame(&self, frame: FrameId, held: &Held) -> (TokenStream, TokenStream) {
        let f = &self.body.frames[frame];
        let hidden: Held = f
            .hides
            .iter()
            .copied()
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
    pub(super) fn enter(&self, c: ConstructId, held: &Held) -> TokenStream {
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
                    let (prelude, cond) = self.fill_jumps(cond.clone(), held);
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
                let (mut preludes, scrutinee) = self.fill_jumps(scrutinee.clone(), held);
                let mut code_arms = Vec::new();
                for (pat, frame) in arms {
                    let mut pat = pat.clone();
                    if let syn::Pat::Guard(guard) = &mut pat {
                        let (prelude, filled) = self.fill_jumps((*guard.guard).clone(), held);
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
                let (prelude, iter) = self.fill_jumps(iter.clone(), held);
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

    /// `let P = value [else D];`, parking held bindings the pattern hides that are needed later.
    pub(super) fn bind(
        &self,
        pat: &syn::Pat,
        value: TokenStream,
        diverge: Option<&syn::Block>,
        node: &Node,
        held: &mut Held,
    ) -> TokenStream {
        let hidden = Self::held_of(&node.hides, held);
        let park = self.park(&hidden.iter().copied().collect(), held);
        // The `else` block still sees the hidden bindings (the pattern binds nothing there), and
        // a jump in it parks them itself.
        let (prelude, diverge) = match diverge {
            Some(d) => {
                let (prelude, d) = self.fill_jumps(d.clone(), held);
                (prelude, Some(quote!(else #d)))
            }
            None => (TokenStream::new(), None),
        };
        for b in &hidden {
            held.remove(b);
        }
        held.extend(node.defs.iter().copied());
        let allow = self.split_mut(node).then(|| quote!(#[allow(unused_mut)]));
        let binding = match (park.is_empty(), diverge) {
            (true, diverge) => quote!(#allow let #pat = #value #diverge;),
            // Parked once the pattern matched, through a macro defined while they are in scope
            // (see `verbatim_with_parks`).
            (false, Some(diverge)) => {
                let name = format_ident!("__mrtr_hide_{}", hidden[0]);
                let (define, invoke) = Self::deferred_park(name, park);
                quote!(#define #allow let #pat = #value #diverge; #invoke)
            }
            // Parks go between computing the value and binding it (the pattern hides them).
            (false, None) => quote!(let __mrtr_v = #value; #park #allow let #pat = __mrtr_v;),
        };
        quote!(#prelude #binding)
    }
}
