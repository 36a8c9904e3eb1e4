//! A carried local partly moved before an `ask!` cannot be saved whole: reported at the ask.
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

#[derive(Serialize, Deserialize)]
pub struct Plan {
    pub id: String,
    pub steps: Vec<String>,
}

pub struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Deploy")]
    async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
        let plan = Plan { id: args.service.clone(), steps: vec![] };
        let id = plan.id;
        let ok = ask!(confirm: elicit::<Confirm>(format!("Deploy {id}?")));
        Ok(match ok {
            Answer::Accept(c) if c.ok => format!("{id}: {} steps", plan.steps.len()),
            _ => "skipped".into(),
        })
    }
}

fn main() {}
