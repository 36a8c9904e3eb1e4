//! One complete flow: rounds until the tool completes, each round's answering instance noted.
//!
//! A round whose connection breaks (its instance was killed or is restarting), or that gets no
//! answer in time, is sent again, unchanged, as a client would; so is a round the server asks
//! to retry later (-32603: the replay store did not answer, or another round holds the
//! continuation's lease). With single use on, an instance killed after taking a round's lease
//! and before answering leaves the lease to run out: the retries are refused as in flight until
//! then, and the next one takes the round over and runs it (the effect stays single through the
//! round's idempotency key).

use std::time::Duration;

use serde_json::Value;

use crate::flows::{self, Kind};
use crate::wire::{self, RoundError};

/// A flow never needs more rounds than this; more means the server is looping.
const MAX_ROUNDS: usize = 6;

/// How often a client retries one round, and how long it waits before each retry: 15 s of
/// back-off, well past the fleet's lease (`scripts/fleet.sh`), so a round stranded by a
/// SIGKILL gets through.
const MAX_RETRIES: u32 = 60;
const BACKOFF: Duration = Duration::from_millis(250);

#[derive(Default, Debug)]
pub struct FlowReport {
    /// Latency of each completed round, by its index in the flow (0 = first round).
    pub rounds: Vec<(usize, Duration)>,
    /// Rounds answered by another instance than the one whose `input_required` they resume.
    pub resumed_elsewhere: u32,
    /// Rounds sent again after a broken connection.
    pub retried: u32,
    /// Attempts sent again after no complete answer within `wire::ATTEMPT_TIMEOUT`, with what
    /// was seen of each (the instance whose headers arrived, if any).
    pub unanswered: Vec<String>,
    /// Rounds sent again after the server could not check single use (-32603 "retry later":
    /// nothing ran and the continuation was not spent).
    pub retried_store_unavailable: u32,
    /// Rounds sent again after another round held the continuation's lease (-32603 "retry
    /// later": in practice, an instance killed mid-round).
    pub retried_in_flight: u32,
    /// Rounds that got through after being refused as in flight: taken over once the lease
    /// of the instance that stranded them ran out.
    pub taken_over: u32,
    pub failure: Option<String>,
}

pub async fn run(
    client: &reqwest::Client,
    url: &str,
    kind: Kind,
    flow_id: &str,
    ids: &mut u64,
) -> FlowReport {
    let mut report = FlowReport::default();
    let arguments = kind.arguments(flow_id);
    {
        let mut state: Option<String> = None;
        let mut responses: Option<Value> = None;
        let mut suspended_by: Option<String> = None;
        for index in 0..MAX_ROUNDS {
            *ids += 1;
            let request = flows::call(*ids, kind, &arguments, responses.as_ref(), state.as_deref());
            let first_sent = std::time::Instant::now();
            let mut retries = 0;
            let mut refused_in_flight = false;
            let mut answered = wire::post(client, url, &request).await;
            while let Err(error) = &answered
                && let Some(why) = retry_reason(error)
                && retries < MAX_RETRIES
            {
                retries += 1;
                match why {
                    Retry::Transport => report.retried += 1,
                    Retry::Unanswered => report.unanswered.push(format!(
                        "{} round {}: {error}",
                        kind.tool(),
                        index + 1
                    )),
                    Retry::StoreUnavailable => report.retried_store_unavailable += 1,
                    Retry::InFlight => {
                        report.retried_in_flight += 1;
                        refused_in_flight = true;
                    }
                }
                // A client backs off a little before retrying; nginx meanwhile marks a dead
                // upstream down.
                tokio::time::sleep(BACKOFF).await;
                answered = wire::post(client, url, &request).await;
            }
            let answered = match answered {
                Ok(answered) => answered,
                Err(error) => {
                    report.failure = Some(format!(
                        "{} round {}: {error} (after {retries} retries, {:.1} s)",
                        kind.tool(),
                        index + 1,
                        first_sent.elapsed().as_secs_f64()
                    ));
                    return report;
                }
            };
            report.taken_over += u32::from(refused_in_flight);
            report.rounds.push((index, answered.elapsed));
            if suspended_by
                .as_ref()
                .is_some_and(|by| *by != answered.instance)
            {
                report.resumed_elsewhere += 1;
            }
            let result = answered.result;
            if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
                let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
                    report.failure =
                        Some(format!("input_required without inputRequests: {result}"));
                    return report;
                };
                let answers: serde_json::Map<String, Value> = requests
                    .iter()
                    .map(|(key, request)| (key.clone(), flows::answer(request)))
                    .collect();
                responses = Some(Value::Object(answers));
                state = result
                    .get("requestState")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                suspended_by = Some(answered.instance);
                continue;
            }
            let text = result
                .pointer("/content/0/text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if result.get("isError").and_then(Value::as_bool) == Some(true)
                || !text.starts_with(&kind.expected_text(flow_id))
            {
                report.failure = Some(format!(
                    "{} completed with an unexpected result: {result}",
                    kind.tool()
                ));
            }
            return report;
        }
        report.failure = Some(format!(
            "{} did not complete within {MAX_ROUNDS} rounds",
            kind.tool()
        ));
        report
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Retry {
    Transport,
    Unanswered,
    StoreUnavailable,
    InFlight,
}

/// The failures a client retries, unchanged: a broken connection, and the -32603 answers whose
/// message says to retry later (nothing ran).
fn retry_reason(error: &RoundError) -> Option<Retry> {
    match error {
        RoundError::Transport(_) => Some(Retry::Transport),
        RoundError::Unanswered { .. } => Some(Retry::Unanswered),
        RoundError::Rpc {
            code: -32603,
            message,
        } if message.contains("retry later") => {
            if message.contains("being answered by another request") {
                Some(Retry::InFlight)
            } else {
                Some(Retry::StoreUnavailable)
            }
        }
        _ => None,
    }
}
