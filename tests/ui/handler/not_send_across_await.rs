//! A handler's future must be `Send` (rmcp boxes it as `Send` unless the tool is `local`): a
//! `!Send` local held across an `.await` is reported on the handler, pointing at the local.
use std::rc::Rc;

use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Deserialize, Serialize, mrtr::Elicit)]
pub struct Confirm {
    pub ok: bool,
}

async fn audit(_line: &str) {}

pub struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Deploy")]
    async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
        let shared = Rc::new(args.service.clone());
        audit(&shared).await;
        let ok = ask!(confirm: elicit::<Confirm>(format!("Deploy {shared}?")));
        Ok(match ok {
            Answer::Accept(c) if c.ok => "deployed".into(),
            _ => "skipped".into(),
        })
    }
}

fn main() {}
