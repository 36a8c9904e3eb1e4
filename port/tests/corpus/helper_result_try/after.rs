//! A sampling helper returning `Result`, entered with `?`.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_helper, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Topic {
    pub topic: String,
}

#[mrtr_helper]
async fn summarize(topic: String) -> Result<String, ErrorData> {
    let request = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("summarize {topic}"))],
        100,
    );
    match ask!(sampled: sample(request)) {
        Answer::Accept(result) => Ok(format!("{:?}", result.message.content)),
        Answer::Decline | Answer::Cancel => Err(ErrorData::invalid_request(
            "the client would not sample",
            None,
        )),
    }
}

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Brief on a topic")]
    async fn brief(&self, Parameters(t): Parameters<Topic>) -> Result<CallToolResult, ErrorData> {
        let summary = ask!(summary: summarize(t.topic.clone()).await)?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "brief: {summary}"
        ))]))
    }
}
