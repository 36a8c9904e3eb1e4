//! A request inside a spawned task: the task outlives the round, so it is reported.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Feedback {
    pub rating: i64,
}
rmcp::elicit_safe!(Feedback);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Ship it, then ask for feedback in the background")]
    async fn ship(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        tokio::spawn(async move {
            let _ = peer.elicit::<Feedback>("How did it go?").await;
        });
        Ok(CallToolResult::success(vec![ContentBlock::text("shipped")]))
    }
}
