// A tool's `ClientCaps` and `StepKey` parameters are handed over by its call, recognised by
// name: a type of that name that is not mrtr's is reported at the parameter, as a type that does
// not match what the call hands over.
use mrtr::mrtr_tool;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Args {
    service: String,
}

mod mine {
    pub struct ClientCaps;
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "case")]
    async fn f(
        &self,
        Parameters(args): Parameters<Args>,
        caps: mine::ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        let _ = (args.service, caps);
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
