//! Expansion snapshots of representative handlers: what `#[mrtr_tool]` generates, pretty-printed.
//! Review a changed snapshot as you would review hand-written code (`cargo insta review`).

use proc_macro2::TokenStream;
use quote::quote;

fn expand(method: TokenStream) -> String {
    let lowered = mrtr_macros_core::mrtr_tool(TokenStream::new(), method);
    let file: syn::File =
        syn::parse2(quote!(impl Server { #lowered })).expect("the expansion parses as Rust");
    prettyplease::unparse(&file)
}

#[test]
fn straight_line_handler() {
    insta::assert_snapshot!(expand(quote! {
        #[mrtr_tool]
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
fn two_keys_in_one_round() {
    insta::assert_snapshot!(expand(quote! {
        #[prompt(name = "plan")]
        async fn plan(&self, Parameters(args): Parameters<Args>) -> Result<GetPromptResult, ErrorData> {
            let (env, replicas) = ask!(env: elicit::<Target>("Environment?"), replicas: elicit::<Count>("Replicas?"));
            Ok(plan_prompt(&args.service, env, replicas))
        }
    }));
}
