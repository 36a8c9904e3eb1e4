//! The confirmation gate every destructive tool starts with: a helper that asks, entered with
//! `if let Some(stop) = gate(..).await`.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
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

async fn require_confirmation(
    context: &RequestContext<RoleServer>,
    message: &str,
) -> Option<CallToolResult> {
    if context.peer.supported_elicitation_modes().is_empty() {
        return Some(text("cannot confirm"));
    }
    match context
        .peer
        .elicit::<Confirmation>(format!("{message}: confirm?"))
        .await
    {
        Ok(Some(Confirmation { confirmed: true })) => None,
        _ => Some(text(format!("not confirmed: {message}"))),
    }
}

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Delete a database")]
    async fn delete(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(t): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(stop) = require_confirmation(&context, &format!("delete {}", t.name)).await {
            return Ok(stop);
        }
        Ok(text(format!("deleted {}", t.name)))
    }
}
