//! `#[mrtr_tool]` on an impl only emits the handlers' step enums: it takes no arguments.
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

#[mrtr_tool(resource)]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Deploy")]
    async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
        let ok = ask!(confirm: elicit::<Confirm>(format!("Deploy {}?", args.service)));
        Ok(match ok {
            Answer::Accept(c) if c.ok => "deployed".into(),
            _ => "skipped".into(),
        })
    }
}

fn main() {}
