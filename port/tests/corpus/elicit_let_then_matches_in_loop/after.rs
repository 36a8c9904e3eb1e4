//! A loop that asks once per wave; the answer is bound, then tested with `matches!`.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Proceed {
    pub proceed: bool,
}
rmcp::elicit_safe!(Proceed);

pub struct Server;

fn waves() -> Vec<String> {
    vec!["canary".into(), "half".into(), "all".into()]
}

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Roll out wave by wave")]
    async fn rollout(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut done: Vec<String> = Vec::new();
        for wave in waves() {
            let answer =
                ask!(answer: elicit::<Proceed>(format!("Roll {} to {wave}?", args.service)));
            if !matches!(answer, Answer::Accept(Proceed { proceed: true })) {
                break;
            }
            done.push(wave);
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            done.join(","),
        )]))
    }
}
