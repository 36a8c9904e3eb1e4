//! `if let` straight on the awaited request, with an `else`.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Wipe the cache")]
    async fn wipe(&self) -> Result<CallToolResult, ErrorData> {
        if let Answer::Accept(Confirm { confirmed: true }) =
            ask!(confirm: elicit::<Confirm>("Wipe?"))
        {
            Ok(CallToolResult::success(vec![ContentBlock::text("wiped")]))
        } else {
            Ok(CallToolResult::success(vec![ContentBlock::text("kept")]))
        }
    }
}
