//! `mrtr::testing` itself: per-key scripts on both eras, how a live legacy request is named,
//! computed answers, fresh servers per round, and that the hostile suite and the equivalence
//! check fail on servers that break their promises.

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ErrorData, InputRequests, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Target {
    environment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Replicas {
    #[elicit(min = 1, max = 9)]
    n: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    go: bool,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    service: String,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

struct Rollout {
    effects: Effects,
}

#[tool_router]
impl Rollout {
    #[mrtr_tool]
    #[tool(description = "three asks, one per round, with an effect between each")]
    async fn rollout(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let target =
            ask!(target_env: elicit::<Target>(format!("Where should {} go?", args.service)));
        let target = match target {
            Answer::Accept(target) => target.environment,
            Answer::Decline => return Ok(reply("declined")),
            Answer::Cancel => return Ok(reply("cancelled")),
        };
        self.effects.record(format!("target {target}"));
        let replicas = ask!(replicas: elicit::<Replicas>("How many replicas?"));
        let replicas = match replicas {
            Answer::Accept(replicas) => replicas.n,
            _ => 1,
        };
        self.effects.record(format!("replicas {replicas}"));
        let confirm = ask!(confirm: elicit::<Confirm>(format!("Roll out {replicas} to {target}?")));
        match confirm {
            Answer::Accept(Confirm { go: true }) => {
                self.effects.record("rolled out");
                Ok(reply(format!("rolled out {replicas} to {target}")))
            }
            _ => Ok(reply("not confirmed")),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
#[serde(rename_all = "snake_case")]
enum Region {
    Eu,
    Us,
    #[serde(rename = "ap")]
    Asia,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
enum Size {
    #[elicit(title = "Small")]
    #[serde(rename = "s")]
    Small,
    #[elicit(title = "Large")]
    #[serde(rename = "l")]
    Large,
}

/// Every kind of field `#[derive(Elicit)]` emits, each with its bounds.
#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Everything {
    #[elicit(format = "email")]
    email: String,
    #[elicit(format = "uri")]
    homepage: Option<String>,
    #[elicit(format = "date")]
    day: String,
    #[elicit(format = "date-time")]
    at: String,
    #[elicit(min_length = 3, max_length = 5)]
    handle: String,
    #[elicit(min = -3, max = 4)]
    offset: i32,
    #[elicit(min = 0.5, max = 2.5)]
    ratio: f64,
    ok: bool,
    region: Region,
    size: Size,
    #[elicit(min_items = 1, max_items = 2)]
    regions: Vec<Region>,
    note: Option<String>,
}

#[tool_router(router = form_router)]
impl Rollout {
    #[mrtr_tool]
    #[tool(description = "one ask of a form with every kind of field")]
    async fn form(&self) -> Result<CallToolResult, ErrorData> {
        let everything = ask!(everything: elicit::<Everything>("Fill everything in"));
        Ok(reply(format!("{everything:?}")))
    }
}

fn form(effects: Effects) -> TestServer<Rollout> {
    TestServer::plain(Rollout { effects }, Rollout::form_router())
}

#[tokio::test]
async fn generated_content_fits_the_schema_the_runtime_checks() {
    for seed in 0..64 {
        let client =
            ScriptedClient::new(Caps::FORM_ONLY).otherwise(move |r| generated_reply(r, seed));
        let run = run(Era::Modern, form, client, "form", json!({})).await;
        assert!(
            run.outcome().starts_with("Accept(Everything {"),
            "seed {seed}: {}",
            run.outcome()
        );
        assert_eq!(
            run.asks(),
            1,
            "seed {seed}: the first answer was accepted, not asked again"
        );
    }
}

fn rollout(effects: Effects) -> TestServer<Rollout> {
    TestServer::plain(Rollout { effects }, Rollout::tool_router())
}

fn args() -> Value {
    json!({ "service": "api" })
}

fn scripted() -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY)
        .accept("target_env", json!({ "environment": "staging" }))
        .accept("replicas", json!({ "n": 3 }))
        .accept("confirm", json!({ "go": true }))
}

#[tokio::test]
async fn per_key_scripts_answer_each_ask_by_its_key_in_both_eras() {
    let both = run_both(rollout, scripted(), "rollout", args()).await;
    both.assert_table("rolled out 3 to staging", 3, 3);
    both.modern
        .assert_asked_keys(&[&["target_env"], &["replicas"], &["confirm"]])
        .assert_effects(&["plan", "target staging", "replicas 3", "rolled out"]);
    assert_eq!(
        both.legacy.ask_keys(),
        ["target_env", "replicas", "confirm"]
    );
    assert!(
        both.legacy.received.iter().all(|r| r.key.is_none()),
        "live requests carry no key"
    );
}

#[tokio::test]
async fn a_live_legacy_request_is_named_by_its_message_without_a_modern_run() {
    let client = scripted()
        .legacy_message("target_env", "Where should")
        .legacy_message("replicas", "How many")
        .legacy_message("confirm", "Roll out");
    let legacy = run(Era::Legacy, rollout, client, "rollout", args()).await;
    legacy
        .assert_outcome("rolled out 3 to staging")
        .assert_rounds(0);
    assert_eq!(legacy.ask_keys(), ["target_env", "replicas", "confirm"]);
}

#[tokio::test]
async fn without_a_hint_or_a_modern_run_only_a_lone_key_of_the_kind_is_named() {
    let lone = ScriptedClient::new(Caps::FORM_ONLY).decline("target_env");
    run(Era::Legacy, rollout, lone, "rollout", args())
        .await
        .assert_outcome("declined");
    let legacy = run(Era::Legacy, rollout, scripted(), "rollout", args()).await;
    let keys = legacy.ask_keys();
    assert!(
        !keys.is_empty() && keys.iter().all(|key| key == "?"),
        "three keys could answer: none is guessed ({keys:?})"
    );
    assert_ne!(legacy.outcome(), "rolled out 3 to staging");
}

#[tokio::test]
async fn a_closure_answers_from_the_request_and_a_key_scripted_twice_answers_a_re_ask() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .answer_with("target_env", |request| {
            let service = request.text.split_whitespace().nth(2).unwrap_or_default();
            accept(json!({ "environment": format!("{service}-canary") }))
        })
        .accept("replicas", json!({ "n": 40 }))
        .accept("replicas", json!({ "n": 2 }))
        .cancel("confirm");
    let both = run_both(rollout, client, "rollout", args()).await;
    both.assert_table("not confirmed", 4, 4);
    both.modern
        .assert_asked_keys(&[&["target_env"], &["replicas"], &["replicas"], &["confirm"]])
        .assert_effects(&["plan", "target api-canary", "replicas 2"]);
    assert_eq!(
        both.legacy.ask_keys(),
        ["target_env", "replicas", "replicas", "confirm"]
    );
}

#[tokio::test]
async fn every_round_on_a_fresh_server_gives_the_same_run() {
    let fresh = run_fresh(rollout, scripted(), "rollout", args()).await;
    fresh
        .assert_outcome("rolled out 3 to staging")
        .assert_rounds(3)
        .assert_asked_keys(&[&["target_env"], &["replicas"], &["confirm"]])
        .assert_effects(&["plan", "target staging", "replicas 3", "rolled out"]);
    let states: Vec<_> = fresh
        .rounds
        .iter()
        .filter_map(|r| r.request_state.clone())
        .collect();
    assert_eq!(
        states.len(),
        3,
        "rounds 2 to 4 each carried the previous round's state"
    );
}

#[tokio::test]
async fn the_rollout_is_equivalent_on_both_eras_for_every_explored_script() {
    equivalent(rollout, "rollout", args()).cases(48).run().await;
    equivalent(rollout, "rollout", args())
        .cases(16)
        .fresh_server_per_round()
        .run()
        .await;
}

#[tokio::test]
async fn the_rollout_keeps_every_promise_under_the_hostile_suite() {
    let report = hostile(rollout, "rollout", args()).run().await;
    report.assert_ok();
    assert!(
        report
            .case("expired: one second past the TTL")
            .is_some_and(|c| c.verdict == Verdict::Held)
    );
}

/// A hand-rolled 2026-07-28 port that trusts its `requestState`: anything presented as a state
/// deploys, and a legacy decline is reported as a cancel.
struct Naive {
    effects: Effects,
}

const FORM: &str = r#"{ "type": "object", "properties": { "environment": { "type": "string" } }, "required": ["environment"] }"#;

impl ServerHandler for Naive {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = serde_json::from_value(json!({ "type": "object" })).unwrap();
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "naive",
            "trusts its state",
            std::sync::Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let form: Value = serde_json::from_str(FORM).unwrap();
        let ask = json!({ "message": "Which environment?", "requestedSchema": form });
        let legacy = context
            .protocol_version()
            .is_some_and(|v| v.has_initialize());
        if legacy {
            let params: ElicitRequestParams = serde_json::from_value(ask).unwrap();
            let answer = context.peer.create_elicitation(params).await;
            let action = answer
                .map(|a| format!("{:?}", a.action))
                .unwrap_or_default();
            let action = if action == "Decline" {
                "Cancel".to_owned()
            } else {
                action
            };
            self.effects.record(format!("answered {action}"));
            return Ok(reply(action).into());
        }
        let Some(state) = request.request_state else {
            let requests: InputRequests = serde_json::from_value(
                json!({ "target_env": { "method": "elicitation/create", "params": ask } }),
            )
            .unwrap();
            return Ok(
                InputRequiredResult::new(Some(requests), Some("x1.k1.cGxhbg".into())).into(),
            );
        };
        let action = request
            .input_responses
            .and_then(|responses| responses.get("target_env").cloned())
            .and_then(|answer| {
                answer
                    .get("action")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let action = format!(
            "{}{}",
            action[..1.min(action.len())].to_uppercase(),
            action.get(1..).unwrap_or_default()
        );
        self.effects.record(format!("answered {action}"));
        let _ = state;
        Ok(reply(action).into())
    }
}

fn naive(effects: Effects) -> Naive {
    Naive { effects }
}

#[tokio::test]
async fn a_server_that_trusts_its_request_state_fails_the_hostile_suite_one_line_per_broken_case() {
    let report = hostile(naive, "naive", json!({})).run().await;
    let broken: Vec<&str> = report
        .broken()
        .iter()
        .map(|case| case.name.as_str())
        .collect();
    for expected in [
        "tamper: bit flip at the first byte of the sealed body",
        "truncation: half the token",
        "suffix: one base64url character",
        "expired: one second past the TTL",
        "cross-principal: alice's state presented by mallory",
        "oversize: 65 inputResponses keys",
        "missing-answer: `target_env` left out",
        "capability-missing: a 2026-07-28 request without `elicitation.form`",
    ] {
        assert!(
            broken.contains(&expected),
            "`{expected}` not reported broken: {report}"
        );
    }
    assert_eq!(
        report
            .case("control: a genuine retry is accepted")
            .map(|c| &c.verdict),
        Some(&Verdict::Held)
    );
    let message = std::panic::catch_unwind(|| report.assert_ok())
        .expect_err("assert_ok fails on a broken server")
        .downcast::<String>()
        .expect("a formatted panic message");
    let lines = message
        .lines()
        .filter(|line| line.starts_with("BROKEN"))
        .count();
    assert_eq!(lines, broken.len(), "{message}");
}

#[tokio::test]
async fn a_port_whose_legacy_path_differs_fails_equivalence_with_a_minimal_script() {
    let check = tokio::spawn(
        equivalent(naive, "naive", json!({}))
            .caps(Caps::FORM_ONLY)
            .run(),
    );
    let panic = check
        .await
        .expect_err("the eras differ on a decline")
        .into_panic();
    let message = panic
        .downcast::<String>()
        .expect("a formatted panic message");
    assert!(
        message.contains("minimal script (choices per key, in order of first ask) [Decline]"),
        "{message}"
    );
    assert!(
        message.contains("Modern: Decline") && message.contains("Legacy: Cancel"),
        "{message}"
    );
}
