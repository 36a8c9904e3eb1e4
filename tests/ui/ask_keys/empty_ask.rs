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
        let service = args.service;
        let _ = ask!();
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(service)]))
    }
}

fn main() {}
