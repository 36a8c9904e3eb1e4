//! A server with its own `ServerHandler::call_tool` (no `#[tool_handler]`): lowered tools run
//! through `mrtr::call`, one line each, and through a registry built at run time, on both eras.

use std::collections::BTreeMap;
use std::sync::Arc;

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
struct Target {
    name: String,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

/// A tool as a registry holds it: a plain function pointer.
type Tool = mrtr::ToolFn<Lab>;

struct Lab {
    effects: Effects,
    runtime: Arc<mrtr::Runtime>,
    /// `None`: dispatch by `match`; `Some`: by a registry filled at start-up.
    registry: Option<BTreeMap<&'static str, Tool>>,
}

impl Lab {
    #[mrtr_tool]
    #[tool(description = "drops a table after confirmation")]
    async fn drop_table(
        &self,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let ok = ask!(confirm: elicit::<Confirmation>(format!("drop {}?", target.name)));
        if !matches!(ok, Answer::Accept(Confirmation { confirmed: true })) {
            return Ok(text("kept"));
        }
        self.effects.record(format!("dropped {}", target.name));
        Ok(text(format!("dropped {}", target.name)))
    }

    #[mrtr_tool]
    #[tool(description = "vacuums")]
    async fn vacuum(&self) -> Result<CallToolResult, ErrorData> {
        self.effects.record("vacuumed");
        Ok(text("vacuumed"))
    }

    fn registry() -> BTreeMap<&'static str, Tool> {
        let mut tools: BTreeMap<&'static str, Tool> = BTreeMap::new();
        tools.insert("drop_table", |s, r, c| {
            mrtr::call(s, Self::drop_table, r, c)
        });
        tools.insert("vacuum", |s, r, c| mrtr::call(s, Self::vacuum, r, c));
        tools
    }
}

impl ServerHandler for Lab {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::default())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        context.extensions.insert(self.runtime.clone());
        if let Some(registry) = &self.registry {
            let Some(tool) = registry.get(request.name.as_ref()) else {
                return Err(ErrorData::invalid_params("no such tool", None));
            };
            return tool(self, request, context).await;
        }
        match request.name.as_ref() {
            "drop_table" => mrtr::call(self, Self::drop_table, request, context).await,
            "vacuum" => mrtr::call(self, Self::vacuum, request, context).await,
            _ => Err(ErrorData::invalid_params("no such tool", None)),
        }
    }
}

fn by_match(effects: Effects) -> Lab {
    Lab {
        effects,
        runtime: test_runtime("dispatch"),
        registry: None,
    }
}

fn by_registry(effects: Effects) -> Lab {
    Lab {
        registry: Some(Lab::registry()),
        ..by_match(effects)
    }
}

fn client() -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY).on_elicit("drop", [accept(json!({"confirmed": true}))])
}

#[tokio::test]
async fn a_hand_written_call_tool_runs_lowered_tools_on_both_eras() {
    let both = run_both(by_match, client(), "drop_table", json!({"name": "t1"})).await;
    both.assert_table("dropped t1", 1, 1);
    assert_eq!(both.legacy.effects, ["dropped t1"]);
    let both = run_both(by_match, client(), "vacuum", json!({})).await;
    both.assert_table("vacuumed", 0, 0);
}

#[tokio::test]
async fn a_registry_built_at_run_time_dispatches_the_same() {
    let both = run_both(by_registry, client(), "drop_table", json!({"name": "t2"})).await;
    both.assert_table("dropped t2", 1, 1);
    assert_eq!(both.legacy.effects, ["dropped t2"]);
}

#[tokio::test]
async fn a_fresh_instance_per_round_resumes_a_dispatched_tool() {
    let run = run_fresh(by_registry, client(), "drop_table", json!({"name": "t3"})).await;
    assert_eq!(run.outcome(), "dropped t3");
    assert_eq!(run.effects, ["dropped t3"]);
}
