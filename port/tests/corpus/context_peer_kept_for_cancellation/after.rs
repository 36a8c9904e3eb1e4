//! `context.peer.elicit`, while the handler still uses the context for cancellation: the
//! context parameter stays.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Reindex")]
    async fn reindex(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let confirm = ask!(confirm: elicit::<Confirm>("Reindex now?"));
        if !matches!(confirm, Answer::Accept(Confirm { confirmed: true })) {
            return Ok(CallToolResult::success(vec![ContentBlock::text("skipped")]));
        }
        if context.ct.is_cancelled() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "cancelled",
            )]));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "reindexed",
        )]))
    }
}
