//! A loop that asks once per wave; the answer is bound, then tested with `matches!`.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Proceed {
    pub proceed: bool,
}
rmcp::elicit_safe!(Proceed);

pub struct Server;

fn waves() -> Vec<String> {
    vec!["canary".into(), "half".into(), "all".into()]
}

#[tool_router]
impl Server {
    #[tool(description = "Roll out wave by wave")]
    async fn rollout(
        &self,
        Parameters(args): Parameters<Args>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut done: Vec<String> = Vec::new();
        for wave in waves() {
            let answer = peer
                .elicit::<Proceed>(format!("Roll {} to {wave}?", args.service))
                .await;
            if !matches!(answer, Ok(Some(Proceed { proceed: true }))) {
                break;
            }
            done.push(wave);
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            done.join(","),
        )]))
    }
}
