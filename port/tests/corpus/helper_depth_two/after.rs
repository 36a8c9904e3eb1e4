//! Helpers at depth two: an admin check (a method) passes the shared gate, then asks a code.
use mrtr::{Answer, ask, mrtr_helper, mrtr_tool};
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

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Code {
    pub code: String,
}
rmcp::elicit_safe!(Code);

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

#[mrtr_helper]
async fn require_confirmation(message: &str) -> Option<CallToolResult> {
    let answer = ask!(answer: elicit::<Confirmation>(format!("{message}: confirm?")));
    match answer {
        Answer::Accept(Confirmation { confirmed: true }) => None,
        _ => Some(text(format!("not confirmed: {message}"))),
    }
}

pub struct Server;

impl Server {
    #[mrtr_helper]
    async fn require_admin(&self, user: String) -> Option<CallToolResult> {
        let stop = ask!(stop: require_confirmation(&format!("act as admin {user}")).await);
        if let Some(stop) = stop {
            return Some(stop);
        }
        match ask!(code: elicit::<Code>("admin code")) {
            Answer::Accept(Code { code }) if code == "42" => None,
            _ => Some(text("wrong admin code")),
        }
    }
}

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "An admin-only reset")]
    async fn reset(
        &self,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let stop = ask!(stop: self.require_admin(target.name.clone()).await);
        if let Some(stop) = stop {
            return Ok(stop);
        }
        Ok(text("reset done"))
    }
}
