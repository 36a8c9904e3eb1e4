//! `let .. else` on the awaited request.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Name {
    pub name: String,
}
rmcp::elicit_safe!(Name);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Greet someone")]
    async fn greet(&self) -> Result<CallToolResult, ErrorData> {
        let Answer::Accept(who) = ask!(who: elicit::<Name>("Who?")) else {
            return Ok(CallToolResult::success(vec![ContentBlock::text("nobody")]));
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "hello {}",
            who.name
        ))]))
    }
}
