//! One whole tool call in one era, with everything a behaviour test asserts on collected.

use rmcp::model::CallToolResult;
use rmcp::service::ServiceError;
use serde_json::Value;

use super::client::{Received, ScriptedClient};
use super::server::{Effects, Round, TestServer};
use super::session::{Era, connect, text_of};

/// What one call did: its result, the rounds the server saw, what user code ran and what the
/// client was asked.
#[derive(Debug)]
pub struct Run {
    pub era: Era,
    pub result: Result<CallToolResult, ServiceError>,
    pub rounds: Vec<Round>,
    pub effects: Vec<String>,
    pub received: Vec<Received>,
}

impl Run {
    /// The result as one comparable line: the text, marked when the tool reported an error, or
    /// the JSON-RPC error.
    pub fn outcome(&self) -> String {
        match &self.result {
            Ok(result) if result.is_error == Some(true) => {
                format!("tool error: {}", text_of(result))
            }
            Ok(result) => text_of(result),
            Err(ServiceError::McpError(error)) => {
                format!("rpc error {}: {}", error.code.0, error.message)
            }
            Err(other) => format!("client error: {other}"),
        }
    }

    /// How many rounds ended in `input_required`.
    pub fn input_required(&self) -> usize {
        self.rounds.iter().filter(|r| r.is_input_required()).count()
    }

    /// The `inputRequests` keys of each `input_required` round, in order.
    pub fn asked_keys(&self) -> Vec<Vec<String>> {
        self.rounds
            .iter()
            .filter(|r| r.is_input_required())
            .map(Round::asked_keys)
            .collect()
    }

    /// How often an effect was recorded.
    pub fn effect(&self, effect: &str) -> usize {
        self.effects.iter().filter(|e| e.as_str() == effect).count()
    }

    /// How many requests the client received (elicitation, sampling, roots together).
    pub fn asks(&self) -> usize {
        self.received.len()
    }
}

/// Serves a fresh server, calls `tool` once with `arguments` as an application would, and
/// collects the run.
pub async fn run<S, F>(
    era: Era,
    make: F,
    client: ScriptedClient,
    tool: &str,
    arguments: Value,
) -> Run
where
    S: Send + Sync + 'static,
    F: FnOnce(Effects) -> TestServer<S>,
{
    let effects = Effects::default();
    let server = make(effects.clone());
    let transcript = server.transcript();
    let session = connect(server, client.clone(), era).await;
    let result = session.call(tool, arguments).await;
    session.close().await;
    Run {
        era,
        result,
        rounds: transcript.rounds(),
        effects: effects.all(),
        received: client.received(),
    }
}

/// The same call in both eras, each against a fresh server and a fresh scripted client.
pub struct Both {
    pub modern: Run,
    pub legacy: Run,
}

/// Runs the call on 2026-07-28 and on a legacy session.
pub async fn run_both<S, F, C>(make: F, client: C, tool: &str, arguments: Value) -> Both
where
    S: Send + Sync + 'static,
    F: Fn(Effects) -> TestServer<S>,
    C: Fn() -> ScriptedClient,
{
    let modern = run(Era::Modern, &make, client(), tool, arguments.clone()).await;
    let legacy = run(Era::Legacy, &make, client(), tool, arguments).await;
    Both { modern, legacy }
}

impl Both {
    /// The shared assertions of the behaviour table:
    /// - both eras end with `expected`, and the legacy run is the straight-line reference;
    /// - the modern call took `rounds` `input_required` rounds, the legacy call none;
    /// - the legacy call sent one real request per ask, `asks` in all, and the modern call had
    ///   the client answer exactly as many;
    /// - user code ran identically: both eras leave the same effect log, so nothing ran twice.
    pub fn assert_table(&self, expected: &str, rounds: usize, asks: usize) {
        let (modern, legacy) = (&self.modern, &self.legacy);
        assert_eq!(legacy.outcome(), expected, "legacy outcome");
        assert_eq!(modern.outcome(), expected, "modern outcome");
        assert_eq!(
            modern.input_required(),
            rounds,
            "input_required rounds on 2026-07-28: {:#?}",
            modern.rounds
        );
        assert_eq!(
            modern.rounds.len(),
            rounds + 1,
            "tools/call requests on 2026-07-28"
        );
        assert_eq!(
            legacy.input_required(),
            0,
            "a legacy session never sees input_required"
        );
        assert_eq!(
            legacy.rounds.len(),
            1,
            "a legacy call is one tools/call request"
        );
        assert_eq!(
            legacy.asks(),
            asks,
            "real server-initiated requests on the legacy session"
        );
        assert!(
            legacy.received.iter().all(|r| r.key.is_none()),
            "legacy asks are real requests"
        );
        assert_eq!(
            modern.asks(),
            asks,
            "input requests the modern client fulfilled"
        );
        assert_eq!(
            modern.effects, legacy.effects,
            "user code ran the same way in both eras"
        );
    }
}
