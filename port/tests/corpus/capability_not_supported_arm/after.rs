//! An `Err(CapabilityNotSupported)` arm that returns a fallback: the runtime refuses an ask the
//! request has no capability for, so the fallback moves in front of the ask as a caps check.
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub branch: String,
}

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
    #[tool(description = "Force-push a branch")]
    async fn force_push(
        &self,
        Parameters(args): Parameters<Args>,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if !caps.elicitation_form() {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "call again with force=true",
            )]));
        }
        let confirmed = match ask!(confirmed: elicit::<Confirm>(format!("Force-push {}?", args.branch)))
        {
            Answer::Accept(Confirm { confirmed }) => confirmed,
            _ => false,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            confirmed.to_string(),
        )]))
    }
}
