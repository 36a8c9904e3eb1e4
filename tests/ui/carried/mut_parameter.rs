use mrtr::prelude::*;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Args {
    items: Vec<String>,
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "case")]
    async fn f(&self, Parameters(mut args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
        args.items.push("first".into());
        let more = ask!(more: elicit::<Extra>("Anything else?"));
        if let Answer::Accept(Extra { name }) = more {
            args.items.push(name);
        }
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(args.items.join(","))]))
    }
}

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Extra {
    name: String,
}

fn main() {}
