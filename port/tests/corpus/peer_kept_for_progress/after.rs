//! The peer still sends a progress notification after the port: the parameter stays, and the
//! request beside it is ported.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ProgressNotificationParam,
    ProgressToken, SamplingMessage,
};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Summarise a long log")]
    async fn summarise_log(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let _ = peer
            .notify_progress(ProgressNotificationParam::new(
                ProgressToken(rmcp::model::NumberOrString::Number(1)),
                0.5,
            ))
            .await;
        let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("log")], 100);
        let text = match ask!(text: sample(params)) {
            Answer::Accept(result) => format!("{:?}", result.message.content),
            Answer::Decline | Answer::Cancel => "no summary".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
