//! A request raced in `tokio::select!` against cancellation: no `ask!` equivalent, reported.
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
    #[tool(description = "Migrate")]
    async fn migrate(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let confirmed = tokio::select! {
            answer = context.peer.elicit::<Confirm>("Migrate now?") => {
                matches!(answer, Ok(Some(Confirm { confirmed: true })))
            }
            _ = context.ct.cancelled() => false,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            confirmed.to_string(),
        )]))
    }
}
