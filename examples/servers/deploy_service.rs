//! The seed guide's `deploy_service` and `summarize_incidents` tools, ported to 2026-07-28 with
//! `mrtr`. Compare with `legacy/deploy_service.rs`: each tool gained `#[mrtr_tool]`, each awaited
//! client request became an `ask!`, and the capability check reads the request's own
//! capabilities. The same binary still serves legacy (2025-11-25) sessions, where every `ask!` is
//! a real server-initiated request.
//!
//! `cargo run --example deploy_service` serves Streamable HTTP at 127.0.0.1:8080/mcp;
//! `--stdio` serves stdio; `--demo` plays the seed's three-message exchange against itself.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still part of 2026-07-28

use crate::ops::{
    Ops, cannot_confirm_waves, render_incident_digest, rollout_done, rollout_stopped, rollout_waves,
};
use crate::reply::{sampled_text, text};
use mrtr::{Answer, ClientCaps, StepKey, ask, mrtr_tool};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, Implementation, SamplingMessage,
    ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::sync::LazyLock;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DeployArgs {
    /// The service to deploy, e.g. `checkout-api`.
    pub service: String,
}

#[derive(Debug, Deserialize, mrtr::Elicit)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Staging,
    Production,
}

#[derive(Debug, Deserialize, mrtr::Elicit)]
pub struct Target {
    /// Deployment target
    pub environment: Environment,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RolloutArgs {
    /// The service to roll out, e.g. `checkout-api`.
    pub service: String,
}

#[derive(Debug, Deserialize, mrtr::Elicit)]
pub struct Proceed {
    /// Roll out to this wave
    pub proceed: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SummarizeArgs {
    /// Start of the window, an ISO date such as `2026-11-01`.
    pub since: String,
}

#[derive(Clone)]
pub struct Deployer {
    ops: Ops,
}

// On the impl, `#[mrtr_tool]` also emits each handler's step enum (`DeployServiceStep`, ...)
// beside it, where rustdoc shows it.
#[mrtr_tool]
#[tool_router]
impl Deployer {
    pub fn new(ops: Ops) -> Self {
        Self { ops }
    }

    #[mrtr_tool]
    #[tool(description = "Deploy a service to staging or production")]
    async fn deploy_service(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        caps: ClientCaps,
        step: StepKey,
    ) -> Result<CallToolResult, ErrorData> {
        if !caps.elicitation_form() {
            return Ok(text(cannot_elicit(&args.service)));
        }
        let plan = self.ops.build_deploy_plan(&args.service).await?;
        let target = ask!(target_env: elicit::<Target>(format!("Deploy {} — which environment?", args.service)));
        let target = match target {
            Answer::Accept(target) => target,
            Answer::Decline => return Ok(text("Deployment declined by user.")),
            Answer::Cancel => return Ok(text("Deployment cancelled by user.")),
        };
        let environment = target.environment.as_str();
        // Under single use a round whose instance died is run again by the next presentation;
        // the round's key makes the back end deploy once whatever the number of runs.
        let url = self
            .ops
            .idempotent(step.get())
            .run_deploy(&args.service, environment, &plan.id)
            .await?;
        Ok(text(format!(
            "Deployed {} to {environment}: {url}",
            args.service
        )))
    }

    /// A loop that asks: one confirmation per wave, so a complete rollout is five rounds on
    /// 2026-07-28 (four `input_required`, then the result).
    #[mrtr_tool]
    #[tool(description = "Roll a service out wave by wave, confirming each wave")]
    async fn staged_rollout(
        &self,
        Parameters(args): Parameters<RolloutArgs>,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if !caps.elicitation_form() {
            return Ok(text(cannot_confirm_waves(&args.service)));
        }
        let plan = self.ops.build_deploy_plan(&args.service).await?;
        let mut done: Vec<String> = Vec::new();
        for wave in rollout_waves() {
            let answer = ask!(confirm_wave: elicit::<Proceed>(format!("Roll {} out to {wave}?", args.service)));
            if !matches!(answer, Answer::Accept(Proceed { proceed: true })) {
                return Ok(text(rollout_stopped(&args.service, &wave, &done)));
            }
            self.ops.run_wave(&args.service, &wave, &plan.id).await?;
            done.push(wave);
        }
        Ok(text(rollout_done(&args.service, &done)))
    }

    #[mrtr_tool]
    #[tool(description = "Summarise recent incidents in three bullets")]
    async fn summarize_incidents(
        &self,
        Parameters(args): Parameters<SummarizeArgs>,
        caps: ClientCaps,
        step: StepKey,
    ) -> Result<CallToolResult, ErrorData> {
        let incidents = self.ops.fetch_incidents(&args.since).await?;
        if incidents.is_empty() {
            return Ok(text("No incidents in that window."));
        }
        let digest = render_incident_digest(&incidents);
        if !caps.sampling() {
            return Ok(text(digest));
        }
        // The continuation carries this key, not the digest or the sampled text.
        let digest_key = self.ops.cache_digest(&digest);
        let reply = ask!(summary: sample(summary_request(&digest)));
        match reply {
            Answer::Accept(result) => {
                match sampled_text(&result.message.content.clone().into_vec()) {
                    Some(summary) => {
                        self.ops
                            .idempotent(step.get())
                            .record_summary(&digest_key, &summary)
                            .await?;
                        Ok(text(summary))
                    }
                    None => Ok(text("Unusable sampling response. Nothing was recorded.")),
                }
            }
            Answer::Decline | Answer::Cancel => Ok(text(
                "Summary not generated. The raw incident list is still available.",
            )),
        }
    }
}

/// The tool router, built once per process. rmcp's `#[tool_handler]` builds it for every call
/// by default, and a stateless Streamable HTTP server makes a new `Deployer` for every request,
/// so every round (a 2026-07-28 flow is several) paid for the router again: each tool's schema,
/// and rmcp's name check per tool. That was about a third of this server's instructions per
/// request with three tools, and it grows with every tool a server adds.
static TOOLS: LazyLock<ToolRouter<Deployer>> = LazyLock::new(Deployer::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("deploy-service", env!("CARGO_PKG_VERSION")),
        )
    }
}

impl Environment {
    fn as_str(&self) -> &'static str {
        match self {
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }
}

fn cannot_elicit(service: &str) -> String {
    format!(
        "This client cannot show a confirmation form. Ask the user which environment (staging or \
         production) to deploy \"{service}\" to, then call deploy_service again."
    )
}

fn summary_request(digest: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(digest)], 400)
        .with_system_prompt("Summarise these incidents in three bullets. No preamble.")
}
