//! A URL-mode elicitation matched on its `ElicitationAction`: each action is its `Answer`.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Connect an account")]
    async fn connect(&self) -> Result<CallToolResult, ErrorData> {
        let url = url::Url::parse("https://example.invalid/oauth")
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let outcome = match ask!(outcome: elicit_url("Sign in to continue", url)) {
            Answer::Accept(()) => "connected",
            Answer::Decline => "declined",
            _ => "cancelled",
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(outcome)]))
    }
}
