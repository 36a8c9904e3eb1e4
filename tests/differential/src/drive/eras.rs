//! The lowered handler on both eras.
//!
//! 2026-07-28: every round runs on a freshly constructed server (new `TestServer`, new runtime
//! with the same key, new session), and only `requestState` and the answers travel between
//! rounds, as behind a load balancer: anything the lowering kept in memory would be lost.
//! Legacy: one call, each ask a real server-initiated request the scripted client answers.

use std::collections::BTreeMap;
use std::time::Duration;

use mrtr::testing::{self as harness, Caps, Effects, Era, ScriptedClient, TestServer, connect};
use rmcp::model::CallToolResponse;
use rmcp::service::ServiceError;
use serde_json::{Map, Value, json};

use crate::program::script::{self, Reply, Script};

use super::case::{Asked, Case, Observed, key_in};
use super::vocab::content;

/// A server for one round (or one legacy call), built fresh each time.
pub type MakeServer<S> = fn(Effects) -> TestServer<S>;

/// No handler here takes more rounds than its reference plus this; more means a loop.
const EXTRA_ROUNDS: usize = 4;
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

fn client_error(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(error) => format!("rpc error {}: {}", error.code.0, error.message),
        other => format!("client error: {other}"),
    }
}

/// The first `"message"` string anywhere in an input request.
fn message_of(request: &Value) -> Option<String> {
    match request {
        Value::Object(map) => map
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(message_of)),
        Value::Array(items) => items.iter().find_map(message_of),
        _ => None,
    }
}

fn elicit_result(form: crate::program::ast::Form, reply: Reply) -> Value {
    match reply {
        Reply::Accept(choice) => json!({ "action": "accept", "content": content(form, choice) }),
        Reply::Decline => json!({ "action": "decline" }),
        Reply::Cancel => json!({ "action": "cancel" }),
    }
}

pub async fn run_modern<S: Send + Sync + 'static>(
    case: &Case,
    script: Script,
    make: MakeServer<S>,
    reference_rounds: usize,
) -> Observed {
    let effects = Effects::default();
    let arguments = case.arguments();
    let mut observed = Observed {
        outcome: String::new(),
        effects: Vec::new(),
        rounds: Vec::new(),
        input_required: 0,
        anomalies: Vec::new(),
    };
    let mut asked_before: BTreeMap<String, u32> = BTreeMap::new();
    let mut state: Option<String> = None;
    let mut responses: Option<Value> = None;
    loop {
        if observed.input_required > reference_rounds + EXTRA_ROUNDS {
            observed.outcome = "still input_required after the round limit".into();
            break;
        }
        let session = connect(
            make(effects.clone()),
            ScriptedClient::new(Caps::FORM_ONLY),
            Era::Modern,
        )
        .await;
        let round = session.round(case.name, arguments.clone(), responses.take(), state.take());
        let response = tokio::time::timeout(CALL_TIMEOUT, round).await;
        session.close().await;
        let response = match response {
            Ok(response) => response,
            Err(_) => {
                observed.outcome = "timeout".into();
                break;
            }
        };
        match response {
            Ok(CallToolResponse::InputRequired(result)) => {
                observed.input_required += 1;
                let requests = serde_json::to_value(&result.input_requests).unwrap_or(Value::Null);
                let mut answers = Map::new();
                let mut group = Vec::new();
                for (wire_key, request) in requests.as_object().into_iter().flatten() {
                    let base = wire_key.split('#').next().unwrap_or(wire_key).to_owned();
                    let message = message_of(request).unwrap_or_default();
                    if key_in(&message) != Some(base.as_str()) {
                        observed
                            .anomalies
                            .push(format!("input request {wire_key} has message {message:?}"));
                    }
                    let Some(form) = case.form_of(&base) else {
                        observed
                            .anomalies
                            .push(format!("unknown input request key {wire_key}"));
                        continue;
                    };
                    let count = asked_before.entry(base.clone()).or_insert(0);
                    let reply = script::answer(script, &base, *count);
                    *count += 1;
                    answers.insert(wire_key.clone(), elicit_result(form, reply));
                    group.push(Asked { key: base, message });
                }
                group.sort();
                observed.rounds.push(group);
                responses = Some(Value::Object(answers));
                state = result.request_state;
                if state.is_none() {
                    observed
                        .anomalies
                        .push("input_required without requestState".into());
                }
            }
            Ok(CallToolResponse::Complete(result)) => {
                observed.outcome = super::reference::outcome_line(&Ok(result));
                break;
            }
            Ok(other) => {
                observed.outcome = format!("unexpected response {other:?}");
                break;
            }
            Err(error) => {
                observed.outcome = client_error(&error);
                break;
            }
        }
    }
    observed.effects = effects.all();
    observed
}

pub async fn run_legacy<S: Send + Sync + 'static>(
    case: &Case,
    script: Script,
    make: MakeServer<S>,
    reference_groups: &[usize],
) -> Observed {
    let mut client = ScriptedClient::new(Caps::FORM_ONLY);
    for (key, form) in case.keys {
        // The harness repeats a rule's last reply, so one more than the most asks suffices.
        let replies =
            (0..=case.max_asks_per_key).map(|nth| match script::answer(script, key, nth) {
                Reply::Accept(choice) => harness::accept(content(*form, choice)),
                Reply::Decline => harness::Reply::Decline,
                Reply::Cancel => harness::Reply::Cancel,
            });
        client = client.on_elicit(&format!("[{key}]"), replies.collect::<Vec<_>>());
    }
    let call = harness::run(Era::Legacy, make, client, case.name, case.arguments());
    let Ok(run) = tokio::time::timeout(CALL_TIMEOUT, call).await else {
        return Observed {
            outcome: "timeout".into(),
            effects: Vec::new(),
            rounds: Vec::new(),
            input_required: 0,
            anomalies: Vec::new(),
        };
    };
    let mut anomalies = Vec::new();
    if run.input_required() != 0 || run.rounds.len() != 1 {
        anomalies.push(format!(
            "a legacy call took {} tools/call requests",
            run.rounds.len()
        ));
    }
    let mut asked: Vec<Asked> = run
        .received
        .iter()
        .map(|r| {
            if r.key.is_some() {
                anomalies.push(format!("legacy ask {:?} came as an input request", r.text));
            }
            Asked {
                key: key_in(&r.text).unwrap_or("?").to_owned(),
                message: r.text.clone(),
            }
        })
        .collect();
    // Legacy requests carry no round: cut them as the reference's rounds were cut, so that
    // only the order within one multi-key ask (which has none) is forgiven.
    let mut rounds = Vec::new();
    for &size in reference_groups {
        if asked.is_empty() {
            break;
        }
        let mut group: Vec<Asked> = asked.drain(..size.min(asked.len())).collect();
        group.sort();
        rounds.push(group);
    }
    if !asked.is_empty() {
        rounds.push(asked);
    }
    Observed {
        outcome: run.outcome(),
        effects: run.effects,
        input_required: rounds.len(),
        rounds,
        anomalies,
    }
}
