//! The seed guide's shape: a match on the awaited elicitation with every legacy arm.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Target {
    /// Where to deploy
    pub environment: String,
}
rmcp::elicit_safe!(Target);

pub struct Server;

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

#[tool_router]
impl Server {
    #[tool(description = "Deploy a service")]
    async fn deploy(
        &self,
        Parameters(args): Parameters<Args>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        // Which environment: the user decides.
        let target = match peer
            .elicit::<Target>(format!("Deploy {} where?", args.service))
            .await
        {
            Ok(Some(target)) => target,
            Ok(None) => return Ok(text("Nothing was chosen.")),
            Err(ElicitationError::UserDeclined) => return Ok(text("Declined.")),
            Err(ElicitationError::UserCancelled) => return Ok(text("Cancelled.")),
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        };
        Ok(text(format!("deployed to {}", target.environment)))
    }
}
