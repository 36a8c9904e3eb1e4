//! A server with its own `ServerHandler::call_tool` (no `#[tool_handler]`): each arm that runs
//! a tool becomes `mrtr::call(..)`.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, schemars, tool};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct Target {
    pub name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn arguments(request: &CallToolRequestParams) -> Result<Target, ErrorData> {
    let arguments = request.arguments.clone().unwrap_or_default();
    serde_json::from_value(serde_json::Value::Object(arguments))
        .map_err(|e| ErrorData::invalid_params(e.to_string(), None))
}

pub struct Lab;

impl Lab {
    #[tool(description = "Drops a table after confirmation")]
    async fn drop_table(
        &self,
        Parameters(target): Parameters<Target>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let ok = peer
            .elicit::<Confirmation>(format!("drop {}?", target.name))
            .await;
        if !matches!(ok, Ok(Some(Confirmation { confirmed: true }))) {
            return Ok(text("kept"));
        }
        Ok(text(format!("dropped {}", target.name)))
    }
}

impl ServerHandler for Lab {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "drop_table" => self
                .drop_table(Parameters(arguments(&request)?), context.peer.clone())
                .await
                .map(Into::into),
            _ => Err(ErrorData::invalid_params("no such tool", None)),
        }
    }
}
