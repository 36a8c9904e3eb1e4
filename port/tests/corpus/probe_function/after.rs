//! A plain function that probes the peer's capabilities: it takes `&ClientCaps` instead, and
//! its callers pass `&caps`.
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub table: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirm {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirm);

pub struct Server;

fn can_ask(caps: &ClientCaps) -> bool {
    caps.elicitation_form()
}

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Drop a table")]
    async fn drop_table(
        &self,
        Parameters(args): Parameters<Args>,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if !can_ask(&caps) {
            return Ok(CallToolResult::success(vec![ContentBlock::text(
                "cannot confirm",
            )]));
        }
        match ask!(confirm: elicit::<Confirm>(format!("Drop {}?", args.table))) {
            Answer::Accept(Confirm { confirmed: true }) => {
                Ok(CallToolResult::success(vec![ContentBlock::text("dropped")]))
            }
            Answer::Accept(_) | Answer::Decline => {
                Ok(CallToolResult::success(vec![ContentBlock::text("kept")]))
            }
            Answer::Cancel => Ok(CallToolResult::success(vec![ContentBlock::text(
                "cancelled",
            )])),
        }
    }
}
