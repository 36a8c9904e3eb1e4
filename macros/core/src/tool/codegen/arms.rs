//! The dispatch loop's arms: the start, each site's resume arm, each loop head and each join.

use super::*;

impl Gen<'_> {
    pub(super) fn arm(&self, arm: Arm) -> TokenStream {
        let pc = self.pc(arm);
        let code = self.arm_code(arm);
        quote!(#pc => { #code })
    }

    /// What an arm runs, without its `pc =>`.
    pub(super) fn arm_code(&self, arm: Arm) -> TokenStream {
        match arm {
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
                                // Taken first: a `match` cannot end the value of a `let .. else`.
                                let value = self.taken(quote!(#t), &wire);
                                let bind = self.bind(
                                    pat,
                                    quote!(__mrtr_joined),
                                    diverge.as_ref(),
                                    node,
                                    &mut held,
                                );
                                quote!(let __mrtr_joined = #value; #bind)
                            }
                            _ => quote!(),
                        };
                        let rest = self.run(frame, index + 1, held);
                        quote!(#bind #rest)
                    },
                )
            }
            Arm::Head(c) => self.head_arm(c),
        }
    }

    pub(super) fn head_arm(&self, c: ConstructId) -> TokenStream {
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
                    let (prelude, cond) = self.fill_jumps((*l.expr).clone(), &held);
                    let pat = &l.pat;
                    quote!(#prelude let #pat = #cond else { #exit };)
                }
                ConstructKind::While { cond, .. } => {
                    let exit = self.exit(c, None, &held);
                    let (prelude, cond) = self.fill_jumps(cond.clone(), &held);
                    quote!(#prelude if !(#cond) { #exit })
                }
                _ => quote!(),
            };
            held.extend(start.iter().copied());
            let body = self.run(frame, 0, held);
            quote!(#gate #body)
        })
    }

    pub(super) fn resume_arm(&self, site: SiteId) -> TokenStream {
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
        let decode = if let Some((key, helper)) = s.helper() {
            self.enter_helper(site, key, helper)
        } else if let [key] = &s.keys[..] {
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

    /// A helper site's resume arm begins by entering the callee (fresh with the arguments the
    /// site evaluated, or resumed from the frame this step carried) under the site's key
    /// prefix, before any user code runs: a retry walks down the chain of frames and re-runs
    /// nothing. A callee that suspends leaves its frame in this step's slot, one that fails
    /// leaves its failure in `Io`; either way the site leaves the dispatch loop at its step,
    /// whose exit seals or reports it. The entering itself (key prefix, `Entry`, `Settle`) is
    /// done by the callee, once per helper: every site is one call and one `let .. else`,
    /// compiled in every handler that enters it.
    fn enter_helper(&self, site: SiteId, key: &SiteKey, helper: &HelperEntry) -> TokenStream {
        let wire = self.key_at_resume(site, &key.key);
        let call = Self::helper_call(&key.key);
        let frame = self.frame_slot(site);
        let callee = &helper.callee;
        let value = if self.plan.stepped {
            // The driver runs the callee between two calls of the step function; the site's
            // next call finds its value in the mailbox.
            let rt = rt();
            let mailbox = Self::mailbox(&key.key);
            // A helper entered by path is handed over as its machine function itself; a method
            // needs its receiver, so a closure holds that.
            let runner = if helper.method {
                quote!(move |__mrtr_rb, __mrtr_rs, __mrtr_rc, __mrtr_rf, __mrtr_ri| {
                    #callee(__mrtr_rb, __mrtr_rs, __mrtr_rc, __mrtr_rf, __mrtr_ri)
                })
            } else {
                quote!(#callee)
            };
            quote! {
                (match #mailbox.received(&mut #frame.value) {
                    ::core::option::Option::Some(__mrtr_v) => __mrtr_v,
                    ::core::option::Option::None => {
                        let __mrtr_callee = #rt::callee(#wire, &mut #call, &mut #frame.value, &mut #mailbox,
                            ::std::boxed::Box::new(#runner));
                        return __mrtr_pause.enter(__mrtr_io, __mrtr_callee);
                    }
                })
            }
        } else {
            quote!(#callee(&&(), #wire, &mut #call, &mut #frame.value, &mut __mrtr_io).await)
        };
        quote! {
            let ::core::option::Option::Some(__mrtr_a0) = #value else {
                break '__mrtr_dispatch #site;
            };
        }
    }
}
