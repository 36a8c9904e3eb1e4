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
        let accepted = both(prepare(), ask!(open: elicit_url(args.service, "https://example.com")));
        let _ = accepted;
        Ok(CallToolResult::success(vec![]))
    }
}

fn prepare() -> bool {
    true
}

fn both(ready: bool, answer: Answer<()>) -> bool {
    ready && matches!(answer, Answer::Accept(()))
}

fn main() {}
