//! The carried set of every resume step, for each control-flow shape the lowering opens: what the
//! continuation holds must be exactly what the code after each `ask!` still reads.

use std::collections::BTreeMap;

use quote::quote;

fn carried(item: proc_macro2::TokenStream) -> BTreeMap<String, Vec<String>> {
    let steps = mrtr_macros_core::carried_sets(item).expect("the handler lowers");
    steps
        .into_iter()
        .map(|(step, _, carried)| (step, carried))
        .collect()
}

fn expect(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs
        .iter()
        .map(|(s, c)| (s.to_string(), c.iter().map(|x| x.to_string()).collect()))
        .collect()
}

#[test]
fn case_01_straight_line_carries_what_later_code_reads() {
    let got = carried(quote! {
        async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let plan = build_plan(&args.service).await?;
            let label = format!("{}-{}", args.service, plan.id);
            let scratch = plan.steps.len();
            self.effect(scratch);
            let env = ask!(env: elicit::<Target>("env?"));
            let note = ask!(note: text("note?"));
            run_deploy(&label, env, note, &plan.id)
        }
    });
    assert_eq!(
        got,
        expect(&[
            ("AfterEnv", &["plan", "label"]),
            ("AfterNote", &["plan", "label", "env"])
        ])
    );
}

#[test]
fn case_02_branch_asks_carry_a_binding_used_only_in_a_format_capture() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let base = args.base.clone();
            let region = if args.prod {
                let ok = ask!(prod_ok: confirm(format!("Deploy {base} to prod?")));
                if ok { "prod".to_string() } else { "none".to_string() }
            } else if let Some(h) = &args.region_hint {
                h.clone()
            } else {
                let r = ask!(region: text(format!("Region for {base}?")));
                r.to_uppercase()
            };
            Ok(format!("{base}/{region}"))
        }
    });
    assert_eq!(
        got,
        expect(&[("AfterProdOk", &["base"]), ("AfterRegion", &["base"])])
    );
}

#[test]
fn case_03_match_arm_ask_and_early_return() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let tag = format!("[{}] ", args.name);
            let mode = args.mode;
            let summary = match mode {
                Mode::Skip => return Ok(format!("{tag}skipped")),
                Mode::Auto => format!("{tag}auto"),
                Mode::Manual => {
                    let pick = ask!(pick: elicit::<Choice>("pick?"));
                    match pick {
                        Answer::Accept(c) => format!("{tag}{}", c.name),
                        _ => return Ok(format!("{tag}declined")),
                    }
                }
            };
            self.effect(&summary);
            let ack = ask!(ack: confirm(format!("Proceed with {summary}?")));
            Ok(format!("{summary}/{ack}"))
        }
    });
    assert_eq!(
        got,
        expect(&[("AfterPick", &["tag"]), ("AfterAck", &["summary"])])
    );
}

#[test]
fn case_04_let_else_on_an_answer_carries_the_new_binding_only() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let plan = build_plan(&args.service).await?;
            let target = ask!(target_env: elicit::<Target>("where?"));
            let Answer::Accept(target) = target else { return Ok(declined()) };
            let Answer::Accept(Confirm { reason, .. }) = ask!(confirm: elicit::<Confirm>("sure?")) else {
                return Ok(format!("not confirmed for {}", target.environment));
            };
            Ok(format!("{} {} {reason}", plan.id, target.environment))
        }
    });
    assert_eq!(
        got,
        expect(&[
            ("AfterTargetEnv", &["plan"]),
            ("AfterConfirm", &["plan", "target@2"])
        ])
    );
}

#[test]
fn case_05_loop_with_break_value_carries_the_counter_and_the_tries() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let max = args.max_tries;
            let mut tries = 0;
            let name = loop {
                tries += 1;
                if tries > max { return Ok(String::from("gave up")) }
                let n = ask!(name: text(format!("Name (try {tries})?")));
                if valid(&n) { break n.to_lowercase(); }
                self.effect(n);
            };
            Ok(format!("{name} after {tries}"))
        }
    });
    assert_eq!(got, expect(&[("AfterName", &["max", "tries", "#i0"])]));
}

#[test]
fn case_06_while_with_break_and_continue() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut budget = args.budget;
            let mut bought = Vec::new();
            while budget > 0 {
                let item = ask!(buy: elicit::<Purchase>("buy?"));
                let Answer::Accept(p) = item else { break };
                if p.cost > budget { self.effect(1); continue; }
                budget -= p.cost;
                bought.push(p.name);
            }
            Ok(format!("{bought:?} {budget}"))
        }
    });
    assert_eq!(got, expect(&[("AfterBuy", &["budget", "bought", "#i0"])]));
}

#[test]
fn case_07_for_loop_carries_remaining_items_and_the_current_one() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let items = load_items(&args).await?;
            let mut approved = Vec::new();
            let mut skipped = 0u32;
            for item in items {
                self.effect(format!("inspect {}", item.name));
                let ok = ask!(confirm: confirm(format!("Ship {} ({} kg)?", item.name, item.weight)));
                if ok { approved.push(item.name) } else { skipped += item.weight }
            }
            Ok(format!("{approved:?} {skipped}"))
        }
    });
    assert_eq!(
        got,
        expect(&[(
            "AfterConfirm",
            &["approved", "skipped", "#i0", "#rest0", "item"]
        )])
    );
}

#[test]
fn case_08_labelled_jumps_in_nested_loops() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut log = Vec::new();
            'groups: for g in args.groups.clone() {
                for m in g.members.clone() {
                    let v = ask!(vote: elicit::<Vote>(format!("{} / {m}: vote?", g.name)));
                    match v {
                        Answer::Accept(Vote { choice }) if choice == "skip-group" => continue 'groups,
                        Answer::Accept(Vote { choice }) if choice == "stop" => break 'groups,
                        Answer::Accept(Vote { choice }) => log.push(format!("{m}:{choice}")),
                        _ => continue,
                    }
                    self.effect(1);
                }
                for entry in log.iter() {
                    if entry.ends_with(":veto") { continue 'groups; }
                }
                log.push(format!("{} closed", g.name));
            }
            Ok(format!("{log:?}"))
        }
    });
    assert_eq!(
        got,
        expect(&[(
            "AfterVote",
            &["log", "#i0", "#rest0", "g", "#i1", "#rest1", "m"]
        )])
    );
}

#[test]
fn case_09_question_mark_before_and_after_an_ask() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let cfg = parse_config(&args.raw)?;
            self.effect(1);
            let port_txt = ask!(port: text("port?"));
            let port: u16 = port_txt.trim().parse().map_err(bad)?;
            let conn = connect(&cfg, port).await?;
            Ok(conn)
        }
    });
    assert_eq!(got, expect(&[("AfterPort", &["cfg"])]));
}

#[test]
fn case_10_shadowing_and_patterns_get_a_slot_per_binding() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let x = args.seed * 2;
            self.effect(format!("x={x}"));
            let x = ask!(x: text(format!("x? (seed {x})")));
            let (a, b) = (x.len(), format!("{x}!"));
            let Pair { left, right: mut r } = make_pair(&x);
            let name = args.name.clone();
            for item in args.items.clone() {
                let name = format!("{name}/{item}");
                let ok = ask!(ok: confirm(format!("keep {name}?")));
                if ok { r.push_str(&format!("+{name}")); }
            }
            let y = ask!(y: text("y?"));
            r.push_str(&y);
            Ok(format!("{x}|{a}|{b}|{left}|{r}|{name}"))
        }
    });
    assert_eq!(
        got,
        expect(&[
            ("AfterX", &[]),
            (
                "AfterOk",
                &[
                    "x@2", "a", "b", "left", "r", "name", "#i0", "#rest0", "name@2"
                ]
            ),
            ("AfterY", &["x@2", "a", "b", "left", "r", "name"]),
        ])
    );
}

#[test]
fn case_11_two_keys_in_one_round_then_a_dependent_third() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let stamp = now();
            let (env, replicas) = ask!(env: elicit::<Target>("env?"), replicas: text("Replicas?"));
            let Answer::Accept(env) = env else { return Ok(String::new()) };
            let n: u32 = replicas.parse().unwrap_or(1);
            let ok = ask!(confirm: confirm(format!("Deploy {n} replicas to {}?", env.environment)));
            Ok(format!("{stamp} {ok} {n} {}", env.environment))
        }
    });
    assert_eq!(
        got,
        expect(&[
            ("AfterEnv", &["stamp"]),
            ("AfterConfirm", &["stamp", "env@2", "n"])
        ])
    );
}

#[test]
fn case_12_collections_and_options_are_carried_untyped() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let meta = serde_json::json!({ "service": args.service });
            let mut quotas = HashMap::new();
            quotas.insert(args.service.clone(), vec![1, 2]);
            let mut owner = None;
            let mut count = 0;
            let pick = ask!(owner: elicit::<User>("Owner?"));
            if let Answer::Accept(u) = pick { owner = Some(u); count += 1; }
            let extra: Vec<u32> = vec![3];
            quotas.entry("extra".to_string()).or_insert(extra);
            let total: u64 = count * 10;
            let note = ask!(note: text("note?"));
            Ok(format!("{meta} {quotas:?} {owner:?} {count} {total} {note}"))
        }
    });
    assert_eq!(
        got,
        expect(&[
            ("AfterOwner", &["meta", "quotas", "owner", "count"]),
            ("AfterNote", &["meta", "quotas", "owner", "count", "total"])
        ])
    );
}

#[test]
fn case_13_an_overwritten_binding_is_not_carried_until_it_is_read() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut status = format!("draft-{}", args.service);
            let mut count = 0;
            self.effect(1);
            let a = ask!(a: text("a?"));
            status = a.clone();
            count += 1;
            let b = ask!(b: text(format!("{status}?")));
            Ok(format!("{status} {count} {b}"))
        }
    });
    assert_eq!(
        got,
        expect(&[("AfterA", &["count"]), ("AfterB", &["status", "count"])])
    );
}

#[test]
fn a_local_named_like_a_parameter_is_carried_when_read_through_a_format_capture() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let args = Args { service: args.service.to_uppercase() };
            let k = ask!(k: text("k?"));
            Ok(format!("{args:?} {k}"))
        }
    });
    assert_eq!(got, expect(&[("AfterK", &["args@2"])]));
}

#[test]
fn an_assignment_from_an_ask_replaces_the_value_so_the_old_one_is_not_carried() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut last = Answer::Decline;
            let mut seen = Vec::new();
            for item in args.items.clone() {
                last = ask!(pick: elicit::<Name>(format!("{item}?")));
                if let Answer::Accept(n) = &last { seen.push(n.name.clone()); }
            }
            Ok(format!("{seen:?} {}", last.is_accept()))
        }
    });
    assert_eq!(got, expect(&[("AfterPick", &["seen", "#i0", "#rest0"])]));
}

#[test]
fn a_local_overwritten_inside_a_block_or_both_branches_before_its_next_read_is_not_carried() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut total: u32 = 0;
            let mut label = String::new();
            let mut kept = 0u32;
            for item in args.items.clone() {
                {
                    total = checked(item.len())?;
                }
                if args.loud { label = item.to_uppercase(); } else { label = item.clone(); }
                match args.mode { Mode::A => kept = 1, _ => {} }
                let ok = ask!(ok: confirm(format!("{total} {label} {kept}?")));
                self.effect(ok);
            }
            Ok(format!("{kept}"))
        }
    });
    // `total` and `label` are assigned on every path before they are read again; `kept` only
    // in one arm, so the next iteration may still read the old value.
    assert_eq!(got, expect(&[("AfterOk", &["kept", "#i0", "#rest0"])]));
}

#[test]
fn a_local_only_overwritten_after_the_ask_is_not_carried() {
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut v3: u32 = 1;
            let a = ask!(k1: confirm("k1"));
            'l13: loop {
                if c12 >= 3 { break 'l13; }
                let v16: Rec = match v1 {
                    v14 => {
                        v3 = checked(3u32)?;
                        Rec {}
                    }
                };
            }
            Ok(String::new())
        }
    });
    assert_eq!(got, expect(&[("AfterK1", &[])]));
}

#[test]
fn an_assignment_read_back_inside_a_nested_let_initializer_does_not_carry_the_old_value() {
    // Found by the differential hunt (seed 0x18ed40ae23d3732e), minimised.
    let got = carried(quote! {
        async fn f(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let mut v2: u32 = args.count;
            ask!(k0: confirm("k0"));
            if args.flag {
                let v5: u32 = if args.other { v2 = 0; v2 } else { 0 };
                self.effect(v5);
            }
            Ok(String::new())
        }
    });
    assert_eq!(got, expect(&[("AfterK0", &[])]));
}

#[test]
fn a_capitalised_local_bound_by_let_is_carried_but_a_variant_in_an_arm_is_not_a_binding() {
    let got = carried(quote! {
        async fn limits(&self, Parameters(args): Parameters<Args>) -> Result<String, E> {
            let LIMIT = args.tries + 1;
            let kind = match args.kind { Empty => 0, n => n };
            let go = ask!(go: elicit::<Confirm>("go?"));
            Ok(format!("{LIMIT} {kind} {go:?}"))
        }
    });
    assert_eq!(got, expect(&[("AfterGo", &["LIMIT", "kind"])]));
}

#[test]
fn an_owned_type_written_on_the_let_overrides_the_borrowing_method_guess() {
    let refused = mrtr_macros_core::carried_sets(quote! {
        async fn cached(&self) -> Result<String, E> {
            let hit = self.cache.get("k");
            let go = ask!(go: elicit::<Confirm>("go?"));
            Ok(format!("{hit:?} {go:?}"))
        }
    });
    assert!(refused.is_err_and(|errors| errors[0].contains("borrows")));
    let got = carried(quote! {
        async fn cached(&self) -> Result<String, E> {
            let hit: Option<String> = self.cache.get("k");
            let go = ask!(go: elicit::<Confirm>("go?"));
            Ok(format!("{hit:?} {go:?}"))
        }
    });
    assert_eq!(got, expect(&[("AfterGo", &["hit"])]));
}

/// Each helper site's frame takes one of a step mask's 64 bits: 64 carried locals and a helper
/// site are refused like 65 locals, not a shift overflow in the macro.
#[test]
fn a_helper_frame_counts_against_the_64_slot_limit() {
    let lets: Vec<proc_macro2::TokenStream> = (0..64)
        .map(|i| {
            let name = quote::format_ident!("v{i}");
            quote!(let #name = #i;)
        })
        .collect();
    let reads: Vec<proc_macro2::Ident> = (0..64).map(|i| quote::format_ident!("v{i}")).collect();
    let item = quote! {
        async fn wide(&self) -> Result<String, ErrorData> {
            #(#lets)*
            let ok = ask!(gate: confirm("go?").await);
            Ok(format!("{ok} {}", [#(#reads),*].len()))
        }
    };
    let errors = mrtr_macros_core::carried_sets(item).expect_err("refused");
    assert!(
        errors.iter().any(|e| e.contains("more than 64 locals")),
        "{errors:?}"
    );
}
