//! The peer still sends a progress notification after the port: the parameter stays, and the
//! request beside it is ported.
#![allow(deprecated)]
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ProgressNotificationParam,
    ProgressToken, SamplingMessage,
};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Summarise a long log")]
    async fn summarise_log(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let _ = peer
            .notify_progress(ProgressNotificationParam::new(
                ProgressToken(rmcp::model::NumberOrString::Number(1)),
                0.5,
            ))
            .await;
        let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("log")], 100);
        let text = match peer.create_message(params).await {
            Ok(result) => format!("{:?}", result.message.content),
            Err(_) => "no summary".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
