//! The catch-all error arm uses the error value and also takes declines and cancels: `Answer`
//! carries no error, so the legacy `Result` is kept around the ask and the arm runs as before.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Label {
    pub label: String,
}
rmcp::elicit_safe!(Label);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Label a build")]
    async fn label(&self) -> Result<CallToolResult, ErrorData> {
        match match ask!(label: elicit::<Label>("Label?")) {
            Answer::Accept(value) => Ok(Some(value)),
            Answer::Decline => Err(rmcp::service::ElicitationError::UserDeclined),
            Answer::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),
        } {
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
