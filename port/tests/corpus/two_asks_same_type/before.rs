//! Two elicitations of the same type in one handler, neither bound to a name: keys are named
//! after the type and made unique.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct YesNo {
    pub yes: bool,
}
rmcp::elicit_safe!(YesNo);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Two questions")]
    async fn survey(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let mut score = 0;
        if let Ok(Some(YesNo { yes: true })) = peer.elicit::<YesNo>("Coffee?").await {
            score += 1;
        }
        match peer.elicit::<YesNo>("Tea?").await {
            Ok(Some(YesNo { yes: true })) => score += 1,
            _ => {}
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            score.to_string(),
        )]))
    }
}
