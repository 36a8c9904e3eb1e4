//! A sampling helper returning `Result`, entered with `?`.
#![allow(deprecated)]
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Topic {
    pub topic: String,
}

async fn summarize(peer: Peer<RoleServer>, topic: String) -> Result<String, ErrorData> {
    let request = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("summarize {topic}"))],
        100,
    );
    match peer.create_message(request).await {
        Ok(result) => Ok(format!("{:?}", result.message.content)),
        Err(_) => Err(ErrorData::invalid_request(
            "the client would not sample",
            None,
        )),
    }
}

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Brief on a topic")]
    async fn brief(
        &self,
        Parameters(t): Parameters<Topic>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let summary = summarize(peer.clone(), t.topic.clone()).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "brief: {summary}"
        ))]))
    }
}
