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
        let shared = if args.service.is_empty() {
            std::rc::Rc::new(0usize)
        } else {
            let open = ask!(open: elicit_url("Open the dashboard?", "https://example.com"));
            std::rc::Rc::new(usize::from(open.is_accept()))
        };
        let n = *shared;
        drop(shared);
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(n.to_string())]))
    }
}

fn main() {}
