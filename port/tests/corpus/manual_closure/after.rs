//! A request inside a closure cannot be an `ask!`: reported and left as it was; the handler's
//! other request is still ported, and the peer parameter stays for the closure.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Prune old backups")]
    async fn prune(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let first = ask!(first: elicit::<Confirm>("Prune anything?"));
        if !matches!(first, Answer::Accept(Confirm { confirmed: true })) {
            return Ok(CallToolResult::success(vec![ContentBlock::text("kept")]));
        }
        let ask = |name: &'static str| {
            let peer = peer.clone();
            async move { peer.elicit::<Confirm>(format!("prune {name}?")).await }
        };
        let mut pruned = 0;
        for name in ["daily", "weekly"] {
            if matches!(ask(name).await, Ok(Some(Confirm { confirmed: true }))) {
                pruned += 1;
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            pruned.to_string(),
        )]))
    }
}
