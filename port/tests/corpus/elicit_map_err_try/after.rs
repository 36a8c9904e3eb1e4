//! `.map_err(..)?` on the awaited elicitation: the legacy `Result` is kept around the ask, so
//! the user's error mapping runs for a decline or cancel exactly as before.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Ticket {
    pub title: String,
}
rmcp::elicit_safe!(Ticket);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "File a ticket")]
    async fn file_ticket(&self) -> Result<CallToolResult, ErrorData> {
        let ticket = match ask!(ticket: elicit::<Ticket>("Ticket title?")) {
            Answer::Accept(value) => Ok(Some(value)),
            Answer::Decline => Err(rmcp::service::ElicitationError::UserDeclined),
            Answer::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),
        }
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let title = ticket.map_or_else(|| "untitled".to_string(), |t| t.title);
        Ok(CallToolResult::success(vec![ContentBlock::text(title)]))
    }
}
