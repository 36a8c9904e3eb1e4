// One lowering error (an `ask!` evaluated after other code of its statement) in a body that uses answers in every way an
// `ask!` allows: the error is the only diagnostic, with no knock-on error or warning from the
// rest of the body.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};

#[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Args {
    service: String,
}

#[derive(serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    reason: String,
}

struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "case")]
    async fn f(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
        let first = ask!(first: mrtr::elicit_url(args.service.clone(), "https://example.com"));
        if !first.is_accept() {
            return Ok(CallToolResult::success(vec![]));
        }
        ask!(notice: elicit_url("Read this", "https://example.com/notice"));
        ask! { terms: elicit_url("Terms", "https://example.com/terms") }
        let (why, again) = mrtr::ask!(
            why: elicit::<Confirm>("Why?"),
            again: elicit::<Confirm>("Sure?"),
        );
        let Answer::Accept(why) = why else {
            return Ok(CallToolResult::success(vec![]));
        };
        let sure = again.accepted().map(|c| c.reason.len()).unwrap_or(0);
        let inline = ready() && ask!(inline: elicit::<Confirm>("Inline?")).is_accept();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{} {} {sure} {inline}",
            args.service, why.reason
        ))]))
    }
}

fn ready() -> bool {
    true
}

fn main() {}
