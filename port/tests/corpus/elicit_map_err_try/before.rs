//! `.map_err(..)?` on the awaited elicitation: the legacy `Result` is kept around the ask, so
//! the user's error mapping runs for a decline or cancel exactly as before.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Ticket {
    pub title: String,
}
rmcp::elicit_safe!(Ticket);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "File a ticket")]
    async fn file_ticket(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let ticket = peer
            .elicit::<Ticket>("Ticket title?")
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let title = ticket.map_or_else(|| "untitled".to_string(), |t| t.title);
        Ok(CallToolResult::success(vec![ContentBlock::text(title)]))
    }
}
