// A long-running tool racing its ask against cancellation inside `tokio::select!`: the message
// says why the race is not needed and what to write.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "long-running")]
    async fn rotate(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let go = tokio::select! {
            answer = ask!(go: elicit::<Confirmation>("rotate keys?")) => matches!(answer, Answer::Accept(_)),
            _ = context.ct.cancelled() => false,
        };
        let _ = go;
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
