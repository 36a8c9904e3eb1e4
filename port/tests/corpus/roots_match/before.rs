//! `roots/list` matched directly: ported, with a note on configuration-based roots.
#![allow(deprecated)]
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "How many roots")]
    async fn count_roots(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let count = match peer.list_roots().await {
            Ok(list) => list.roots.len(),
            Err(_) => 0,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            count.to_string(),
        )]))
    }
}
