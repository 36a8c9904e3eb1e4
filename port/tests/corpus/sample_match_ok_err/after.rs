//! Sampling matched on `Ok`/`Err(_)`, with a fallback.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, tool, tool_router};

pub struct Server;

fn request(topic: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(topic)], 100)
}

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Summarise")]
    async fn summarise(&self) -> Result<CallToolResult, ErrorData> {
        let summary = match ask!(summary: sample(request("incidents"))) {
            Answer::Accept(result) => format!("{:?}", result.message.content),
            Answer::Decline | Answer::Cancel => "no summary".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(summary)]))
    }
}
