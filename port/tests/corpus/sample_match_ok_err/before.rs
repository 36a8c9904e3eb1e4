//! Sampling matched on `Ok`/`Err(_)`, with a fallback.
#![allow(deprecated)]
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

fn request(topic: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(topic)], 100)
}

#[tool_router]
impl Server {
    #[tool(description = "Summarise")]
    async fn summarise(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let summary = match peer.create_message(request("incidents")).await {
            Ok(result) => format!("{:?}", result.message.content),
            Err(_) => "no summary".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(summary)]))
    }
}
