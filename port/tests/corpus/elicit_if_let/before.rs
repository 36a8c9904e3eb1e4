//! `if let` straight on the awaited request, with an `else`.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Wipe the cache")]
    async fn wipe(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        if let Ok(Some(Confirm { confirmed: true })) = peer.elicit::<Confirm>("Wipe?").await {
            Ok(CallToolResult::success(vec![ContentBlock::text("wiped")]))
        } else {
            Ok(CallToolResult::success(vec![ContentBlock::text("kept")]))
        }
    }
}
