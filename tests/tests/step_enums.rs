//! `#[mrtr_tool]` on the impl itself, below `#[tool_router]` this time (the deploy example puts
//! it above): the step enum appears beside the impl, names each resume point as sealed, and the
//! router still registers the lowered tool, which runs the same on both eras.

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
