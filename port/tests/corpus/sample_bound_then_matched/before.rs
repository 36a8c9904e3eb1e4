//! A sampling reply bound first, matched later, after a capability probe on the peer.
#![allow(deprecated)]
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Draft a reply")]
    async fn draft(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let can_sample = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.sampling.is_some());
        if !can_sample {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "no model",
            )]));
        }
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("draft")], 200);
        let reply = peer.create_message(params).await;
        match reply {
            Ok(result) => Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{:?}",
                result.message.content
            ))])),
            Err(_) => Ok(CallToolResult::success(vec![ContentBlock::text(
                "no draft",
            )])),
        }
    }
}
