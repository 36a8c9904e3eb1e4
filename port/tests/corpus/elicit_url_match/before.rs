//! A URL-mode elicitation matched on its `ElicitationAction`: each action is its `Answer`.
use rmcp::model::{CallToolResult, ContentBlock, ElicitationAction};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Connect an account")]
    async fn connect(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let url = url::Url::parse("https://example.invalid/oauth")
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let outcome = match peer
            .elicit_url("Sign in to continue", url, "connect-1")
            .await
        {
            Ok(ElicitationAction::Accept) => "connected",
            Ok(ElicitationAction::Decline) => "declined",
            Ok(_) => "cancelled",
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(outcome)]))
    }
}
