//! One arm for every way of not answering: `Ok(None) | Err(UserDeclined) | Err(UserCancelled)`.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Audience {
    pub readers: String,
}
rmcp::elicit_safe!(Audience);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Write notes")]
    async fn notes(&self) -> Result<CallToolResult, ErrorData> {
        let readers = match ask!(readers: elicit::<Audience>("For whom?")) {
            Answer::Accept(audience) => audience.readers,
            Answer::Decline | Answer::Cancel => "engineers".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(readers)]))
    }
}
