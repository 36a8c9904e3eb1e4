//! A plain function that probes the peer's capabilities: it takes `&ClientCaps` instead, and
//! its callers pass `&caps`.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub table: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some())
}

#[tool_router]
impl Server {
    #[tool(description = "Drop a table")]
    async fn drop_table(
        &self,
        Parameters(args): Parameters<Args>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if !can_ask(&peer) {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "cannot confirm",
            )]));
        }
        match peer
            .elicit::<Confirm>(format!("Drop {}?", args.table))
            .await
        {
            Ok(Some(Confirm { confirmed: true })) => {
                Ok(CallToolResult::success(vec![ContentBlock::text("dropped")]))
            }
            Ok(_) | Err(ElicitationError::UserDeclined) => {
                Ok(CallToolResult::success(vec![ContentBlock::text("kept")]))
            }
            Err(ElicitationError::UserCancelled) => {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "cancelled",
                )]))
            }
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}
