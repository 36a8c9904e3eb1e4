//! The seed guide's shape: a match on the awaited elicitation with every legacy arm.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Target {
    /// Where to deploy
    pub environment: String,
}
rmcp::elicit_safe!(Target);

pub struct Server;

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Deploy a service")]
    async fn deploy(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        // Which environment: the user decides.
        let target = match ask!(target: elicit::<Target>(format!("Deploy {} where?", args.service)))
        {
            Answer::Accept(target) => target,
            // mrtr-port: `Ok(None)` (no content) is `Answer::Cancel` now; its own arm is gone
            Answer::Decline => return Ok(text("Declined.")),
            Answer::Cancel => return Ok(text("Cancelled.")),
        };
        Ok(text(format!("deployed to {}", target.environment)))
    }
}
