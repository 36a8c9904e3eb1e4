//! The seed guide's `deploy_service` and `summarize_incidents` tools as written for the legacy
//! handshake (2025-11-25): each tool stops mid-call, sends the client its own request and awaits
//! the answer. That only works on a stateful two-way channel.
//!
//! `../deploy_service.rs` is the same server ported to 2026-07-28 with `mrtr`; diff the two.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still served

use crate::ops::{
    Ops, cannot_confirm_waves, render_incident_digest, rollout_done, rollout_stopped, rollout_waves,
};
use crate::reply::{sampled_text, text};
use mrtr::{Answer, ClientCaps, ask, mrtr_tool};
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

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
#[serde(rename_all = "lowercase")]
// Inlined: an elicitation form is flat, and rmcp's `elicit::<T>` refuses the `$ref` schemars
// would otherwise emit for an enum field ("Invalid schema for type ...").
#[schemars(inline)]
pub enum Environment {
    Staging,
    Production,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Target {
    /// Deployment target
    pub environment: Environment,
}
rmcp::elicit_safe!(Target);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RolloutArgs {
    /// The service to roll out, e.g. `checkout-api`.
    pub service: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Proceed {
    /// Roll out to this wave
    pub proceed: bool,
}
rmcp::elicit_safe!(Proceed);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SummarizeArgs {
    /// Start of the window, an ISO date such as `2026-11-01`.
    pub since: String,
}

#[derive(Clone)]
pub struct Deployer {
    ops: Ops,
}

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
    ) -> Result<CallToolResult, ErrorData> {
        if !supports_form_elicitation(&caps) {
            return Ok(text(cannot_elicit(&args.service)));
        }
        let plan = self.ops.build_deploy_plan(&args.service).await?;
        let target = match ask!(target: elicit::<Target>(format!("Deploy {} — which environment?", args.service)))
        {
            Answer::Accept(target) => target,
            // mrtr-port: `Ok(None)` (no content) is `Answer::Cancel` now; its own arm is gone
            Answer::Decline => return Ok(text("Deployment declined by user.")),
            Answer::Cancel => {
                return Ok(text("Deployment cancelled by user."));
            }
        };
        let environment = target.environment.as_str();
        let url = self
            .ops
            .run_deploy(&args.service, environment, &plan.id)
            .await?;
        Ok(text(format!(
            "Deployed {} to {environment}: {url}",
            args.service
        )))
    }

    #[mrtr_tool]
    #[tool(description = "Roll a service out wave by wave, confirming each wave")]
    async fn staged_rollout(
        &self,
        Parameters(args): Parameters<RolloutArgs>,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if !supports_form_elicitation(&caps) {
            return Ok(text(cannot_confirm_waves(&args.service)));
        }
        let plan = self.ops.build_deploy_plan(&args.service).await?;
        let mut done = Vec::new();
        for wave in rollout_waves() {
            let answer =
                ask!(answer: elicit::<Proceed>(format!("Roll {} out to {wave}?", args.service)));
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
    ) -> Result<CallToolResult, ErrorData> {
        let incidents = self.ops.fetch_incidents(&args.since).await?;
        if incidents.is_empty() {
            return Ok(text("No incidents in that window."));
        }
        let digest = render_incident_digest(&incidents);
        let can_sample = caps.sampling();
        if !can_sample {
            return Ok(text(digest));
        }
        let digest_key = self.ops.cache_digest(&digest);
        let reply = ask!(reply: sample(summary_request(&digest)));
        match reply {
            Answer::Accept(result) => {
                match sampled_text(&result.message.content.clone().into_vec()) {
                    Some(summary) => {
                        self.ops.record_summary(&digest_key, &summary).await?;
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

/// The tool router, built once per process (rmcp's default builds it for every call).
static TOOLS: LazyLock<ToolRouter<Deployer>> = LazyLock::new(Deployer::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("legacy-deploy-service", env!("CARGO_PKG_VERSION")),
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

fn supports_form_elicitation(caps: &ClientCaps) -> bool {
    caps.elicitation_form()
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
