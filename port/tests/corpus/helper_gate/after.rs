//! The confirmation gate every destructive tool starts with: a helper that asks, entered with
//! `if let Some(stop) = gate(..).await`.
use mrtr::{Answer, ClientCaps, ask, mrtr_helper, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Target {
    pub name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

#[mrtr_helper]
async fn require_confirmation(caps: &ClientCaps, message: &str) -> Option<CallToolResult> {
    if !caps.elicitation_form() {
        return Some(text("cannot confirm"));
    }
    match ask!(confirmation: elicit::<Confirmation>(format!("{message}: confirm?"))) {
        Answer::Accept(Confirmation { confirmed: true }) => None,
        _ => Some(text(format!("not confirmed: {message}"))),
    }
}

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Delete a database")]
    async fn delete(
        &self,
        caps: ClientCaps,
        Parameters(t): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(stop) = ask!(require_confirmation: require_confirmation(&caps, &format!("delete {}", t.name)).await)
        {
            return Ok(stop);
        }
        Ok(text(format!("deleted {}", t.name)))
    }
}
