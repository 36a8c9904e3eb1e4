//! `let peer = context.peer.clone();` first, then the probe and the request through the alias:
//! the alias statement goes with the context parameter.
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Approval {
    pub approved: bool,
}
rmcp::elicit_safe!(Approval);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Approve a payout")]
    async fn payout(&self, caps: ClientCaps) -> Result<CallToolResult, ErrorData> {
        if !caps.elicitation_form() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "needs approval",
            )]));
        }
        let approval = match ask!(approval: elicit::<Approval>("Pay out?")) {
            Answer::Accept(Approval { approved }) => approved,
            _ => false,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            approval.to_string(),
        )]))
    }
}
