//! Two elicitations of the same type in one handler, neither bound to a name: keys are named
//! after the type and made unique.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct YesNo {
    pub yes: bool,
}
rmcp::elicit_safe!(YesNo);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Two questions")]
    async fn survey(&self) -> Result<CallToolResult, ErrorData> {
        let mut score = 0;
        if let Answer::Accept(YesNo { yes: true }) = ask!(yes_no: elicit::<YesNo>("Coffee?")) {
            score += 1;
        }
        match ask!(yes_no_2: elicit::<YesNo>("Tea?")) {
            Answer::Accept(YesNo { yes: true }) => score += 1,
            _ => {}
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            score.to_string(),
        )]))
    }
}
