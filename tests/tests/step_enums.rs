//! `#[mrtr_tool]` on the impl itself, below `#[tool_router]` (the deploy example puts it above):
//! the step enum appears beside the impl, names each resume point as sealed, and the router
//! still registers the lowered tool, which runs the same on both eras. Then a generic server
//! with the attribute above, whose machines go to a second impl with the same generics.

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Name {
    name: String,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
struct Args {
    service: String,
}

struct Releases {
    effects: Effects,
}

#[tool_router]
#[mrtr_tool]
impl Releases {
    #[mrtr_tool]
    #[tool(description = "names a release, then confirms it")]
    async fn release(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let service = args.service.to_uppercase();
        self.effects.record("start");
        let name = ask!(release_name: elicit::<Name>(format!("Name the {service} release")));
        let Answer::Accept(Name { name }) = name else {
            return Ok(CallToolResult::success(vec![ContentBlock::text("unnamed")]));
        };
        let ok = ask!(confirm: elicit::<Confirm>(format!("Ship {service} {name}?")));
        let shipped = matches!(ok, Answer::Accept(Confirm { ok: true }));
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{service} {name} shipped={shipped}"
        ))]))
    }

    #[mrtr_tool]
    #[tool(description = "asks nothing: no step enum")]
    async fn status(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
    }
}

fn server(effects: Effects) -> TestServer<Releases> {
    TestServer::new(
        Releases { effects },
        Releases::tool_router(),
        test_runtime("step-enums"),
    )
}

#[test]
fn each_resume_point_is_a_variant_named_as_sealed() {
    assert_eq!(
        ReleaseStep::ALL,
        [ReleaseStep::AfterReleaseName, ReleaseStep::AfterConfirm]
    );
    assert_eq!(ReleaseStep::AfterConfirm.name(), "AfterConfirm");
    assert_eq!(ReleaseStep::AfterReleaseName.info().keys, ["release_name"]);
    assert_eq!(ReleaseStep::AfterReleaseName.info().carried, ["service"]);
    // The second binding named `name` (the let-else pattern) travels as `name@2`.
    assert_eq!(
        ReleaseStep::AfterConfirm.info().carried,
        ["service", "name@2"]
    );
}

#[tokio::test]
async fn the_router_still_registers_the_lowered_tool_on_both_eras() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Name the API release", [accept(json!({"name": "v2"}))])
            .on_elicit("Ship API v2?", [accept(json!({"ok": true}))])
    };
    let both = run_both(server, client, "release", json!({"service": "api"})).await;
    both.assert_table("API v2 shipped=true", 2, 2);
    assert_eq!(both.legacy.effects, ["start"]);
}

/// A server generic over its store, with `#[mrtr_tool]` above `#[tool_router]` as the deploy
/// example writes it: the machines' bodies go to a second impl carrying the same generics and
/// bounds, which `#[tool_router]` never sees; the tool still runs the same on both eras.
trait Shelf: Send + Sync + 'static {
    fn label(&self) -> String;
}

struct Crates;

impl Shelf for Crates {
    fn label(&self) -> String {
        "crates".into()
    }
}

struct Stock<S: Shelf> {
    shelf: S,
    effects: Effects,
}

#[mrtr_tool]
#[tool_router]
impl<S: Shelf> Stock<S>
where
    S: Sized,
{
    #[mrtr_tool]
    #[tool(description = "restocks once confirmed")]
    async fn restock(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let label = format!("{} for {}", self.shelf.label(), args.service);
        self.effects.record("start");
        let ok = ask!(confirm: elicit::<Confirm>(format!("Restock {label}?")));
        let done = matches!(ok, Answer::Accept(Confirm { ok: true }));
        self.effects.record("restocked");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{label} restocked={done}"
        ))]))
    }
}

#[tokio::test]
async fn a_generic_server_with_the_attribute_on_its_impl_runs_on_both_eras() {
    let server = |effects| {
        TestServer::new(
            Stock {
                shelf: Crates,
                effects,
            },
            Stock::<Crates>::tool_router(),
            test_runtime("step-enums-generic"),
        )
    };
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Restock crates for api?", [accept(json!({"ok": true}))])
    };
    let both = run_both(server, client, "restock", json!({"service": "api"})).await;
    both.assert_table("crates for api restocked=true", 1, 1);
    assert_eq!(both.legacy.effects, ["start", "restocked"]);
    assert_eq!(both.modern.effects, ["start", "restocked"]);
    assert_eq!(
        Stock::<Crates>::RESTOCK_STEPS
            .iter()
            .map(|step| step.name)
            .collect::<Vec<_>>(),
        ["AfterConfirm"]
    );
}
