//! An `Err(CapabilityNotSupported)` arm that gives the match a value: the runtime would answer
//! -32021 before it runs, so the request is left as it was and reported.
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Region {
    pub region: String,
}
rmcp::elicit_safe!(Region);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Provision")]
    async fn provision(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let region = match peer.elicit::<Region>("Which region?").await {
            Ok(Some(Region { region })) => region,
            Err(ElicitationError::CapabilityNotSupported) => "eu-west-1".to_string(),
            _ => {
                return Ok(CallToolResult::success(vec![ContentBlock::text(
                    "cancelled",
                )]));
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(region)]))
    }
}
