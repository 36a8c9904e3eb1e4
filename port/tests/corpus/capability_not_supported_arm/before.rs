//! An `Err(CapabilityNotSupported)` arm that returns a fallback: the runtime refuses an ask the
//! request has no capability for, so the fallback moves in front of the ask as a caps check.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub branch: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Force-push a branch")]
    async fn force_push(
        &self,
        Parameters(args): Parameters<Args>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let confirmed = match peer
            .elicit::<Confirm>(format!("Force-push {}?", args.branch))
            .await
        {
            Ok(Some(Confirm { confirmed })) => confirmed,
            Err(ElicitationError::CapabilityNotSupported) => {
                return Ok(CallToolResult::success(vec![ContentBlock::text(
                    "call again with force=true",
                )]));
            }
            _ => false,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            confirmed.to_string(),
        )]))
    }
}
