//! A handler already on mrtr: nothing to do, nothing changed.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, mrtr::Elicit)]
pub struct Confirm {
    pub confirmed: bool,
}

pub struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Wipe")]
    async fn wipe(&self) -> Result<CallToolResult, ErrorData> {
        let answer = ask!(confirm: elicit::<Confirm>("Wipe?"));
        let done = matches!(answer, Answer::Accept(Confirm { confirmed: true }));
        Ok(CallToolResult::success(vec![ContentBlock::text(
            done.to_string(),
        )]))
    }
}
