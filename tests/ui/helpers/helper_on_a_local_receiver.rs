// A helper method entered on a local: the retry re-enters the helper on its receiver, which a
// local of the previous round no longer is.
use mrtr::{Answer, ask, mrtr_helper, mrtr_tool};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

struct Gate;

impl Gate {
    #[mrtr_helper]
    async fn confirm(&self) -> bool {
        let answer = ask!(confirm: elicit::<Confirmation>("go?"));
        matches!(answer, Answer::Accept(Confirmation { confirmed: true }))
    }
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "gated")]
    async fn gated(&self) -> Result<CallToolResult, ErrorData> {
        let gate = Gate;
        let ok = ask!(gate: gate.confirm().await);
        let _ = ok;
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
