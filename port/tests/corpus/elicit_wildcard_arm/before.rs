//! Accepted or not: `Ok(Some(..))` and `_`.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Count {
    pub count: i64,
}
rmcp::elicit_safe!(Count);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Scale")]
    async fn scale(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let replicas = match peer.elicit::<Count>("How many replicas?").await {
            Ok(Some(Count { count })) if count > 0 => count,
            _ => 1,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            replicas.to_string(),
        )]))
    }
}
