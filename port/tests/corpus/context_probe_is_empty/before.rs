//! `supported_elicitation_modes().is_empty()` on `context.peer`: the context becomes `caps`.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Reason {
    pub reason: String,
}
rmcp::elicit_safe!(Reason);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Close the incident")]
    async fn close(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if context.peer.supported_elicitation_modes().is_empty() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "call again with a reason",
            )]));
        }
        let reason = match context.peer.clone().elicit::<Reason>("Why close it?").await {
            Ok(Some(r)) => r.reason,
            _ => "no reason given".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(reason)]))
    }
}
