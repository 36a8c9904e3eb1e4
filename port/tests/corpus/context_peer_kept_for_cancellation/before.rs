//! `context.peer.elicit`, while the handler still uses the context for cancellation: the
//! context parameter stays.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Reindex")]
    async fn reindex(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let confirm = context.peer.elicit::<Confirm>("Reindex now?").await;
        if !matches!(confirm, Ok(Some(Confirm { confirmed: true }))) {
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
