//! Helpers at depth two: an admin check (a method) passes the shared gate, then asks a code.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Target {
    pub name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Code {
    pub code: String,
}
rmcp::elicit_safe!(Code);

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

async fn require_confirmation(peer: &Peer<RoleServer>, message: &str) -> Option<CallToolResult> {
    let answer = peer
        .elicit::<Confirmation>(format!("{message}: confirm?"))
        .await;
    match answer {
        Ok(Some(Confirmation { confirmed: true })) => None,
        _ => Some(text(format!("not confirmed: {message}"))),
    }
}

pub struct Server;

impl Server {
    async fn require_admin(&self, peer: &Peer<RoleServer>, user: String) -> Option<CallToolResult> {
        let stop = require_confirmation(peer, &format!("act as admin {user}")).await;
        if let Some(stop) = stop {
            return Some(stop);
        }
        match peer.elicit::<Code>("admin code").await {
            Ok(Some(Code { code })) if code == "42" => None,
            _ => Some(text("wrong admin code")),
        }
    }
}

#[tool_router]
impl Server {
    #[tool(description = "An admin-only reset")]
    async fn reset(
        &self,
        Parameters(target): Parameters<Target>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let stop = self.require_admin(&peer, target.name.clone()).await;
        if let Some(stop) = stop {
            return Ok(stop);
        }
        Ok(text("reset done"))
    }
}
