//! With `#[mrtr_tool]` on the impl too, the impl lowers its marked methods: a method's error is
//! reported once, and the method is still emitted as written.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Deserialize, serde::Serialize, mrtr::Elicit)]
pub struct Confirm {
    pub ok: bool,
}

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Deploy")]
    async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
        let first = ask!(confirm: elicit::<Confirm>(format!("Deploy {}?", args.service)));
        let again = ask!(confirm: elicit::<Confirm>("Really?"));
        Ok(match (first, again) {
            (Answer::Accept(a), Answer::Accept(b)) if a.ok && b.ok => "deployed".into(),
            _ => "skipped".into(),
        })
    }

    #[mrtr_tool(bogus)]
    #[tool(description = "Status")]
    async fn status(&self) -> Result<String, ErrorData> {
        Ok("ok".into())
    }
}

fn main() {}
