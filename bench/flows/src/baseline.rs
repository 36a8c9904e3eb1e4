//! The honest "without mrtr" comparison: `deploy_service`, `summarize_incidents` and
//! `staged_rollout` written by hand on plain rmcp 3.11, as the porting guide's family-A servers
//! are written. Each tool is a step enum sealed with rmcp's own `RequestStateCodec` (HMAC,
//! feature `request-state`), bound to the tool and its arguments, with a TTL; every round
//! re-reads the state, decodes the answer it expects and either asks again or finishes. It
//! talks to the same pretend back end (`mrtr_examples::ops::Ops`) and is served by the same
//! code as the examples (`mrtr_examples::serve`), so the two servers differ only in how the
//! tools are written.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still part of 2026-07-28

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mrtr::replay::IdempotencyKey;
use mrtr_examples::ops::{
    DeployPlan, Ops, cannot_confirm_waves, render_incident_digest, rollout_done, rollout_stopped,
    rollout_waves,
};
use mrtr_examples::reply::{sampled_text, text};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses as ToolInputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, Implementation, InputRequest, InputRequests, InputRequiredResult,
    RequestStateCodec, SamplingMessage, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// As long as mrtr's default continuation TTL.
pub const STATE_TTL: Duration = Duration::from_secs(300);

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeployArgs {
    /// The service to deploy, e.g. `checkout-api`.
    pub service: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RolloutArgs {
    /// The service to roll out, e.g. `checkout-api`.
    pub service: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SummarizeArgs {
    /// Start of the window, an ISO date such as `2026-11-01`.
    pub since: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Environment {
    Staging,
    Production,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Target {
    /// Deployment target
    pub environment: Environment,
}
rmcp::elicit_safe!(Target);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Proceed {
    /// Roll out to this wave
    pub proceed: bool,
}
rmcp::elicit_safe!(Proceed);

/// The steps of `deploy_service`: where a round can end waiting on the client.
#[derive(Serialize, Deserialize)]
enum DeployStep {
    AwaitingTarget { plan: DeployPlan },
}

#[derive(Serialize, Deserialize)]
enum SummaryStep {
    AwaitingSummary { digest_key: String },
}

#[derive(Serialize, Deserialize)]
enum RolloutStep {
    AwaitingWave {
        plan: DeployPlan,
        done: Vec<String>,
        remaining: Vec<String>,
    },
}

#[derive(Clone)]
pub struct Baseline {
    ops: Ops,
    codec: std::sync::Arc<RequestStateCodec>,
    /// Filler sealed beside each step (`None`: the step alone, as always): how much a bigger
    /// token costs the whole stack, measured on a server that is otherwise unchanged.
    state_padding: Option<std::sync::Arc<str>>,
    /// KiB of distinct code run at the start of every tool call (`crate::ballast`; 0: none).
    ballast_kib: usize,
}

#[tool_router]
impl Baseline {
    pub fn new(ops: Ops, codec: std::sync::Arc<RequestStateCodec>) -> Self {
        Self {
            ops,
            codec,
            state_padding: None,
            ballast_kib: 0,
        }
    }

    /// The filler [`with_state_padding`](Self::with_state_padding) seals: `None` for 0 bytes.
    pub fn state_padding(bytes: usize) -> Option<std::sync::Arc<str>> {
        (bytes > 0).then(|| "p".repeat(bytes).into())
    }

    /// Seals `padding` beside every step (see [`STATE_PAD_VAR`]); built once by the caller, as
    /// the server is made anew for every stateless request.
    pub fn with_state_padding(mut self, padding: Option<std::sync::Arc<str>>) -> Self {
        self.state_padding = padding;
        self
    }

    /// Runs `kib` KiB of distinct code at the start of every tool call (see [`BALLAST_VAR`]).
    pub fn with_ballast(mut self, kib: usize) -> Self {
        self.ballast_kib = kib;
        self
    }

    #[tool(description = "Deploy a service to staging or production")]
    async fn deploy_service(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        RequestState(state): RequestState,
        ToolInputResponses(answers): ToolInputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        crate::ballast::run(self.ballast_kib, 7);
        if !elicits_forms(&context) {
            return Ok(text(cannot_elicit(&args.service)).into());
        }
        let bind = bind("deploy_service", &args);
        let effects = self.ops.idempotent(state.as_deref().map(state_key));
        let step = match state {
            None => {
                let plan = self.ops.build_deploy_plan(&args.service).await?;
                DeployStep::AwaitingTarget { plan }
            }
            Some(sealed) => self.open(&sealed, &bind)?,
        };
        let DeployStep::AwaitingTarget { plan } = step;
        let Some(answer) = answer::<ElicitResult>(&answers, "target_env") else {
            let ask = form(
                format!("Deploy {} — which environment?", args.service),
                &TARGET_FORM,
            );
            return self.ask(
                "target_env",
                ask,
                &DeployStep::AwaitingTarget { plan },
                &bind,
            );
        };
        let target = match answer.action {
            ElicitationAction::Accept => answer
                .content
                .and_then(|content| serde_json::from_value::<Target>(content).ok()),
            ElicitationAction::Decline => {
                return Ok(text("Deployment declined by user.").into());
            }
            _ => return Ok(text("Deployment cancelled by user.").into()),
        };
        let Some(target) = target else {
            let ask = form(
                format!("Deploy {} — which environment?", args.service),
                &TARGET_FORM,
            );
            return self.ask(
                "target_env",
                ask,
                &DeployStep::AwaitingTarget { plan },
                &bind,
            );
        };
        let environment = target.environment.as_str();
        let url = effects
            .run_deploy(&args.service, environment, &plan.id)
            .await?;
        Ok(text(format!("Deployed {} to {environment}: {url}", args.service)).into())
    }

    #[tool(description = "Roll a service out wave by wave, confirming each wave")]
    async fn staged_rollout(
        &self,
        Parameters(args): Parameters<RolloutArgs>,
        RequestState(state): RequestState,
        ToolInputResponses(answers): ToolInputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        crate::ballast::run(self.ballast_kib, 7);
        if !elicits_forms(&context) {
            return Ok(text(cannot_confirm_waves(&args.service)).into());
        }
        let bind = bind("staged_rollout", &args);
        let step = match state {
            None => {
                let plan = self.ops.build_deploy_plan(&args.service).await?;
                let remaining = rollout_waves();
                RolloutStep::AwaitingWave {
                    plan,
                    done: Vec::new(),
                    remaining,
                }
            }
            Some(sealed) => self.open(&sealed, &bind)?,
        };
        let RolloutStep::AwaitingWave {
            plan,
            mut done,
            mut remaining,
        } = step;
        let Some(wave) = remaining.first().cloned() else {
            return Ok(text(rollout_done(&args.service, &done)).into());
        };
        // The first round has no answer yet; a missing or malformed one is asked again.
        let confirmed = answer::<ElicitResult>(&answers, "confirm_wave").and_then(|answer| {
            match answer.action {
                ElicitationAction::Accept => answer
                    .content
                    .and_then(|content| serde_json::from_value::<Proceed>(content).ok())
                    .map(|proceed| proceed.proceed),
                _ => Some(false),
            }
        });
        match confirmed {
            None => {}
            Some(false) => return Ok(text(rollout_stopped(&args.service, &wave, &done)).into()),
            Some(true) => {
                self.ops.run_wave(&args.service, &wave, &plan.id).await?;
                done.push(remaining.remove(0));
            }
        }
        let Some(next) = remaining.first() else {
            return Ok(text(rollout_done(&args.service, &done)).into());
        };
        let ask = form(
            format!("Roll {} out to {next}?", args.service),
            &PROCEED_FORM,
        );
        let step = RolloutStep::AwaitingWave {
            plan,
            done,
            remaining,
        };
        self.ask("confirm_wave", ask, &step, &bind)
    }

    #[tool(description = "Summarise recent incidents in three bullets")]
    async fn summarize_incidents(
        &self,
        Parameters(args): Parameters<SummarizeArgs>,
        RequestState(state): RequestState,
        ToolInputResponses(answers): ToolInputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        crate::ballast::run(self.ballast_kib, 7);
        let bind = bind("summarize_incidents", &args);
        let effects = self.ops.idempotent(state.as_deref().map(state_key));
        let digest_key = match state {
            Some(sealed) => {
                let SummaryStep::AwaitingSummary { digest_key } = self.open(&sealed, &bind)?;
                digest_key
            }
            None => {
                let incidents = self.ops.fetch_incidents(&args.since).await?;
                if incidents.is_empty() {
                    return Ok(text("No incidents in that window.").into());
                }
                let digest = render_incident_digest(&incidents);
                let samples = context
                    .client_capabilities()
                    .is_some_and(|caps| caps.sampling.is_some());
                if !samples {
                    return Ok(text(digest).into());
                }
                let digest_key = self.ops.cache_digest(&digest);
                let step = SummaryStep::AwaitingSummary { digest_key };
                return self.ask("summary", summary_request(&digest), &step, &bind);
            }
        };
        let Some(reply) = answer::<CreateMessageResult>(&answers, "summary") else {
            // Asked again: the digest is looked up under the carried key, not carried itself.
            let digest = self.ops.cached_digest(&digest_key).unwrap_or_default();
            let step = SummaryStep::AwaitingSummary { digest_key };
            return self.ask("summary", summary_request(&digest), &step, &bind);
        };
        match sampled_text(&reply.message.content.clone().into_vec()) {
            Some(summary) => {
                effects.record_summary(&digest_key, &summary).await?;
                Ok(text(summary).into())
            }
            None => Ok(text("Unusable sampling response. Nothing was recorded.").into()),
        }
    }
}

/// The key a resumed round's effects are made under: the same for every presentation of one
/// token, as mrtr's `StepKey` is, so a retried state gets the first run's answer instead of a
/// second deploy. The example's effects go through the same idempotency record this way; without
/// it the baseline would skip work the example does.
fn state_key(sealed: &str) -> IdempotencyKey {
    let digest = Sha256::digest(sealed.as_bytes());
    let mut key = [0; 16];
    key.copy_from_slice(&digest[..16]);
    IdempotencyKey(key)
}

impl Baseline {
    /// Opens a step sealed for this tool and these arguments; every failure is one -32602.
    fn open<T: DeserializeOwned>(&self, sealed: &str, bind: &[u8]) -> Result<T, ErrorData> {
        self.codec
            .open_json_with::<Envelope<T, IgnoredAny>>(sealed, bind)
            .map(|envelope| envelope.step)
            .map_err(|_| {
                ErrorData::invalid_params(
                    "requestState is invalid, expired or does not belong to this request",
                    None,
                )
            })
    }

    /// Seals `step` for this tool and these arguments.
    fn seal<T: Serialize>(&self, step: &T, bind: &[u8]) -> Result<String, ErrorData> {
        let options = SealOptions::new().associated_data(bind).ttl(STATE_TTL);
        let envelope = Envelope {
            step,
            id: NEXT_SEAL_ID.fetch_add(1, Ordering::Relaxed),
            pad: self.state_padding.as_deref(),
        };
        self.codec
            .seal_json_with(&envelope, &options)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    /// Ends the round with `input_required`: one request under `key` and the sealed step.
    fn ask<T: Serialize>(
        &self,
        key: &str,
        request: InputRequest,
        step: &T,
        bind: &[u8],
    ) -> Result<CallToolResponse, ErrorData> {
        let sealed = self.seal(step, bind)?;
        let requests = InputRequests::from([(key.to_owned(), request)]);
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }
}

/// What the baseline seals beside its step. rmcp's codec is deterministic (the same step in
/// the same second is the same token), so an id unique per seal makes every token its own, and with it
/// the key a resumed round's effects are made under ([`state_key`]): two flows deploying the
/// same plan are two deploys, as under mrtr, whose tokens each have their own nonce. The
/// filler is `Baseline::with_state_padding`'s.
#[derive(Serialize, Deserialize)]
struct Envelope<T, P> {
    step: T,
    id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pad: Option<P>,
}

/// Each seal's id: unique is all it needs to be, so a counter from a random start (one system
/// call per process, as mrtr draws its nonces), not a `getrandom` call per seal.
static NEXT_SEAL_ID: LazyLock<AtomicU64> = LazyLock::new(|| {
    let mut start = [0u8; 8];
    getrandom::fill(&mut start).expect("the system has a random source");
    AtomicU64::new(u64::from_le_bytes(start))
});

/// Bytes of filler the `rmcp_baseline` binary seals beside each step (default 0).
pub const STATE_PAD_VAR: &str = "RMCP_BASELINE_STATE_PAD";

/// KiB of distinct code the `rmcp_baseline` binary runs on every tool call (default 0, at most
/// `ballast::MAX_KIB`).
pub const BALLAST_VAR: &str = "RMCP_BASELINE_BALLAST_KIB";

/// Built once per process, as the `mrtr` example does (see `TOOLS` there): rmcp's default
/// builds the router for every call, and the stateless service makes a server per request.
static TOOLS: LazyLock<ToolRouter<Baseline>> = LazyLock::new(Baseline::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for Baseline {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("rmcp-baseline", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// The request binding sealed into every step: the tool and its arguments, so a token cannot
/// be replayed against another tool or other arguments.
fn bind<A: Serialize>(tool: &str, args: &A) -> Vec<u8> {
    let mut hash = Sha256::new();
    hash.update(tool.as_bytes());
    hash.update([0]);
    hash.update(serde_json::to_vec(args).unwrap_or_default());
    hash.finalize().to_vec()
}

/// This request's answer under `key`, if it is there and has the expected shape.
fn answer<T: DeserializeOwned>(
    answers: &Option<rmcp::model::InputResponses>,
    key: &str,
) -> Option<T> {
    let value = answers.as_ref()?.get(key)?;
    T::deserialize(value).ok()
}

fn elicits_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .as_ref()
        .is_some_and(supports_forms)
}

fn supports_forms(caps: &ClientCapabilities) -> bool {
    caps.elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// The forms' schemas, derived once.
static TARGET_FORM: LazyLock<ElicitationSchema> = LazyLock::new(derive_schema::<Target>);
static PROCEED_FORM: LazyLock<ElicitationSchema> = LazyLock::new(derive_schema::<Proceed>);

fn derive_schema<T: schemars::JsonSchema>() -> ElicitationSchema {
    ElicitationSchema::from_type::<T>().expect("the form types derive flat schemas")
}

fn form(message: String, schema: &ElicitationSchema) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema.clone(),
        },
    ))
}

fn summary_request(digest: &str) -> InputRequest {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(digest)], 400)
        .with_system_prompt("Summarise these incidents in three bullets. No preamble.");
    InputRequest::CreateMessage(CreateMessageRequest::new(params))
}

fn cannot_elicit(service: &str) -> String {
    format!(
        "This client cannot show a confirmation form. Ask the user which environment (staging or \
         production) to deploy \"{service}\" to, then call deploy_service again."
    )
}

impl Environment {
    fn as_str(&self) -> &'static str {
        match self {
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }
}

/// A codec with a fresh random key: one process, as the example's default runtime.
pub fn codec() -> RequestStateCodec {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).expect("the system has a random source");
    RequestStateCodec::try_new(key.to_vec()).expect("a 32-byte key is accepted")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Step {
        plan: String,
    }

    fn baseline(padding: usize) -> Baseline {
        Baseline::new(Ops::new(), std::sync::Arc::new(codec()))
            .with_state_padding(Baseline::state_padding(padding))
    }

    /// The same presented state deploys once, as the example's `StepKey` does; another
    /// state is another deploy.
    #[tokio::test]
    async fn a_state_presented_twice_deploys_once() {
        let ops = Ops::new();
        let plain = baseline(0);
        let first = plain.seal(&Step { plan: "p".into() }, b"bind").unwrap();
        let second = plain.seal(&Step { plan: "p".into() }, b"bind").unwrap();
        assert_ne!(first, second, "every seal is a new token");
        for token in [&first, &first, &second] {
            ops.idempotent(Some(state_key(token)))
                .run_deploy("api", "staging", "p")
                .await
                .unwrap();
        }
        assert_eq!(ops.count("deploy"), 2, "{:?}", ops.log());
        assert_eq!(ops.count("already deploy"), 1, "{:?}", ops.log());
    }

    #[test]
    fn a_padded_step_opens_to_the_same_step_and_only_the_token_grows() {
        let step = Step {
            plan: "plan-api".into(),
        };
        let plain = baseline(0);
        let padded = baseline(430);
        let small = plain.seal(&step, b"bind").unwrap();
        let large = padded.seal(&step, b"bind").unwrap();
        assert_eq!(plain.open::<Step>(&small, b"bind").unwrap(), step);
        assert_eq!(padded.open::<Step>(&large, b"bind").unwrap(), step);
        // 430 bytes of filler and its JSON key, base64-encoded.
        assert!(
            large.len() >= small.len() + 430 * 4 / 3,
            "{} {}",
            small.len(),
            large.len()
        );
        assert!(padded.open::<Step>(&large, b"other").is_err());
    }
}
