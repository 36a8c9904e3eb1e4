//! A sampling reply bound first, matched later, after a capability probe on the peer.
#![allow(deprecated)]
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, tool, tool_router};

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Draft a reply")]
    async fn draft(&self, caps: ClientCaps) -> Result<CallToolResult, ErrorData> {
        let can_sample = caps.sampling();
        if !can_sample {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "no model",
            )]));
        }
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("draft")], 200);
        let reply = ask!(reply: sample(params));
        match reply {
            Answer::Accept(result) => Ok(CallToolResult::success(vec![ContentBlock::text(
                format!("{:?}", result.message.content),
            )])),
            Answer::Decline | Answer::Cancel => {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "no draft",
                )]))
            }
        }
    }
}
