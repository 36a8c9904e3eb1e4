use mrtr::prelude::*;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Args {
    service: String,
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "case")]
    async fn f(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
        let first = ask!(confirm: elicit_url(args.service.clone(), "https://example.com/1"));
        let second = ask!(confirm: elicit_url(args.service, "https://example.com/2"));
        let attempts: u32 = "three";
        if first.is_accept() && second.is_accept() {
            return Ok(CallToolResult::success(vec![]));
        }
        let _ = attempts;
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
