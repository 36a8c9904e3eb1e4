//! Two requests awaited together with `tokio::join!`: one round, two keys.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
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
    #[tool(description = "Release notes")]
    async fn release_notes(&self) -> Result<CallToolResult, ErrorData> {
        let (audience, draft) = ask!(
            audience: elicit::<Audience>("Who are they for?"),
            draft: sample(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("draft notes")],
                300
            )),
        );
        let readers = match audience {
            Answer::Accept(audience) => audience.readers,
            Answer::Decline | Answer::Cancel => "engineers".to_string(),
        };
        let body = match draft {
            Answer::Accept(result) => format!("{:?}", result.message.content),
            Answer::Decline | Answer::Cancel => "- changes".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{readers}: {body}"
        ))]))
    }
}
