//! A request wrapped in `tokio::time::timeout`: not the first thing its statement evaluates,
//! and a round that asks has no server-side deadline; reported.
use std::time::Duration;

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
    #[tool(description = "Restart")]
    async fn restart(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let answer =
            tokio::time::timeout(Duration::from_secs(30), peer.elicit::<Confirm>("Restart?")).await;
        let go = matches!(answer, Ok(Ok(Some(Confirm { confirmed: true }))));
        Ok(CallToolResult::success(vec![ContentBlock::text(
            go.to_string(),
        )]))
    }
}
