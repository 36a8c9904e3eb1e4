//! The catch-all error arm uses the error value and also takes declines and cancels: `Answer`
//! carries no error, so the legacy `Result` is kept around the ask and the arm runs as before.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Label {
    pub label: String,
}
rmcp::elicit_safe!(Label);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Label a build")]
    async fn label(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        match peer.elicit::<Label>("Label?").await {
            Ok(Some(Label { label })) => {
                Ok(CallToolResult::success(vec![ContentBlock::text(label)]))
            }
            Ok(None) => Ok(CallToolResult::success(vec![ContentBlock::text(
                "unlabelled",
            )])),
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "no label: {e}"
            ))])),
        }
    }
}
