//! `let .. else` on the awaited request.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Name {
    pub name: String,
}
rmcp::elicit_safe!(Name);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Greet someone")]
    async fn greet(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let Ok(Some(who)) = peer.elicit::<Name>("Who?").await else {
            return Ok(CallToolResult::success(vec![ContentBlock::text("nobody")]));
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "hello {}",
            who.name
        ))]))
    }
}
