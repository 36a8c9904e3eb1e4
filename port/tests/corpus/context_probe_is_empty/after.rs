//! `supported_elicitation_modes().is_empty()` on `context.peer`: the context becomes `caps`.
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Reason {
    pub reason: String,
}
rmcp::elicit_safe!(Reason);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Close the incident")]
    async fn close(&self, caps: ClientCaps) -> Result<CallToolResult, ErrorData> {
        if !caps.elicitation_form() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "call again with a reason",
            )]));
        }
        let reason = match ask!(reason: elicit::<Reason>("Why close it?")) {
            Answer::Accept(r) => r.reason,
            _ => "no reason given".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(reason)]))
    }
}
