//! Expansion snapshots of representative handlers: what `#[mrtr_tool]` generates, pretty-printed.
//! Review a changed snapshot as you would review hand-written code (`cargo insta review`).

use proc_macro2::TokenStream;
use quote::quote;

fn expand(method: TokenStream) -> String {
    expand_with(TokenStream::new(), method)
}

/// What rustc hands the attribute: the method without its own `#[mrtr_tool]`.
fn expand_with(args: TokenStream, method: TokenStream) -> String {
    let lowered = mrtr_macros_core::mrtr_tool(args, method);
    pretty(quote!(impl Server { #lowered }))
}

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as Rust");
    prettyplease::unparse(&file)
}

#[test]
fn straight_line_handler() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Deploy a service")]
        async fn deploy_service(&self, Parameters(args): Parameters<DeployArgs>) -> Result<CallToolResult, ErrorData> {
            let plan = build_deploy_plan(&args.service).await?;
            let target = ask!(target_env: elicit::<Target>(format!("Deploy {}?", args.service)));
            let Answer::Accept(target) = target else { return Ok(declined()) };
            let url = run_deploy(&args.service, target.environment, &plan.id).await?;
            Ok(deployed(url))
        }
    }));
}

#[test]
fn branch_with_an_ask_in_each_arm() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Pick a region")]
        async fn region(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
            let base = args.base.clone();
            let region = if args.prod {
                let ok = ask!(prod_ok: elicit::<Confirm>(format!("Deploy {base} to prod?")));
                let Answer::Accept(_) = ok else { return Ok(String::from("declined")) };
                String::from("prod")
            } else {
                let r = ask!(region: elicit::<Region>(format!("Region for {base}?")));
                r.map(|r| r.name).unwrap_or_default()
            };
            Ok(format!("{base}/{region}"))
        }
    }));
}

#[test]
fn for_loop_with_a_key_per_iteration() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Ship items")]
        async fn ship(&self, Parameters(args): Parameters<Args>) -> Result<Json<Report>, ErrorData> {
            let mut approved = Vec::new();
            for item in args.items.clone() {
                let ok = ask!(confirm: elicit::<Confirm>(format!("Ship {item}?")));
                if !ok.is_accept() {
                    continue;
                }
                approved.push(item);
            }
            Ok(Json(Report { approved }))
        }
    }));
}

#[test]
fn loop_with_a_break_value_and_an_assignment_from_an_ask() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Ask for a name until it is valid")]
        async fn name(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
            let mut tries = 0;
            let mut last = Answer::Decline;
            let name = loop {
                tries += 1;
                if tries > args.max_tries {
                    return Ok(String::from("gave up"));
                }
                last = ask!(name: elicit::<Name>(format!("Name (try {tries})?")));
                if let Answer::Accept(n) = &last {
                    break n.name.to_lowercase();
                }
            };
            Ok(format!("{name} after {tries}, {}", last.is_accept()))
        }
    }));
}

#[test]
fn two_keys_in_one_round() {
    insta::assert_snapshot!(expand(quote! {
        #[prompt(name = "plan")]
        async fn plan(&self, Parameters(args): Parameters<Args>) -> Result<GetPromptResult, ErrorData> {
            let (env, replicas) = ask!(env: elicit::<Target>("Environment?"), replicas: elicit::<Count>("Replicas?"));
            Ok(plan_prompt(&args.service, env, replicas))
        }
    }));
}

#[test]
fn resource_read_handler() {
    insta::assert_snapshot!(expand_with(
        quote!(resource),
        quote! {
            /// Reads a report, asking which section first.
            pub async fn read_report(&self, uri: String) -> Result<ReadResourceResult, ErrorData> {
                let section = ask!(section: elicit::<Section>(format!("Which section of {uri}?")));
                Ok(render(&uri, section))
            }
        }
    ));
}

#[test]
fn a_handler_without_tool_prompt_or_resource_is_rejected_with_a_fix() {
    let out = mrtr_macros_core::mrtr_tool(
        TokenStream::new(),
        quote! {
            async fn orphan(&self) -> Result<String, ErrorData> {
                let a = ask!(a: elicit_url("a", "https://example.com"));
                Ok(format!("{a:?}"))
            }
        },
    )
    .to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("mrtr_tool(resource)"), "{out}");
}

#[test]
fn bindings_hidden_by_a_let_else_and_around_a_jump_are_parked_through_a_macro() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Collect")]
        async fn collect(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
            let name = args.name.clone();
            loop {
                let a = ask!(a: elicit::<Num>(format!("a {name}")));
                if let Answer::Accept(Num { n: name }) = a {
                    if name > 4 { break; }
                }
            }
            let tag = String::from("t");
            if args.deep {
                let Some(tag) = first(&args) else { return Ok(String::new()) };
                let b = ask!(b: elicit::<Num>(format!("b {tag}")));
                drop(b);
            }
            Ok(format!("{name} {tag}"))
        }
    }));
}

/// The recommended form: `#[mrtr_tool]` on the impl lowers its marked methods and adds each
/// handler's step enum beside the impl.
#[test]
fn impl_level_attribute_with_a_step_enum() {
    let lowered = mrtr_macros_core::mrtr_tool(
        TokenStream::new(),
        quote! {
            #[tool_router]
            impl Deployer {
                #[mrtr_tool]
                #[tool(description = "Deploy a service")]
                async fn deploy_service(&self, Parameters(args): Parameters<DeployArgs>) -> Result<CallToolResult, ErrorData> {
                    let plan = build_deploy_plan(&args.service).await?;
                    let target = ask!(target_env: elicit::<Target>(format!("Deploy {}?", args.service)));
                    let Answer::Accept(target) = target else { return Ok(declined()) };
                    Ok(deployed(run_deploy(&args.service, target.environment, &plan.id).await?))
                }

                #[tool(description = "Not lowered")]
                async fn status(&self) -> String {
                    String::from("ok")
                }
            }
        },
    );
    insta::assert_snapshot!(pretty(lowered));
}

fn expand_helper(item: TokenStream) -> String {
    let lowered = mrtr_macros_core::mrtr_helper(TokenStream::new(), item);
    pretty(lowered)
}

#[test]
fn handler_entering_a_helper() {
    insta::assert_snapshot!(expand(quote! {
        #[tool(description = "Delete behind the gate")]
        async fn delete(&self, caps: ClientCaps, Parameters(target): Parameters<Target>) -> Result<CallToolResult, ErrorData> {
            let plan = plan_delete(&target.name);
            let stop = ask!(gate: require_confirmation(&caps, &format!("delete {}", target.name)).await);
            if let Some(stop) = stop {
                return Ok(stop);
            }
            Ok(run(plan))
        }
    }));
}

#[test]
fn helper_with_a_context_and_a_borrowed_parameter() {
    insta::assert_snapshot!(expand_helper(quote! {
        /// The confirmation gate.
        async fn require_confirmation(caps: &ClientCaps, message: &str) -> Option<CallToolResult> {
            if !caps.elicitation_form() {
                return None;
            }
            let answer = ask!(confirm: elicit::<Confirmation>(format!("{message}: confirm?")));
            match answer {
                Answer::Accept(Confirmation { confirmed: true }) => None,
                _ => Some(refused(message)),
            }
        }
    }));
}
