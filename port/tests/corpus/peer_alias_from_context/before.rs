//! `let peer = context.peer.clone();` first, then the probe and the request through the alias:
//! the alias statement goes with the context parameter.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Approval {
    pub approved: bool,
}
rmcp::elicit_safe!(Approval);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Approve a payout")]
    async fn payout(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let peer = context.peer.clone();
        if peer.supported_elicitation_modes().is_empty() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "needs approval",
            )]));
        }
        let approval = match peer.elicit::<Approval>("Pay out?").await {
            Ok(Some(Approval { approved })) => approved,
            _ => false,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            approval.to_string(),
        )]))
    }
}
