//! One whole tool call in one era, with everything a test asserts on collected.

use rmcp::model::{CallToolResponse, CallToolResult, InputResponses};
use rmcp::service::{RoleServer, Service, ServiceError};
use serde_json::Value;

use super::client::{Received, ScriptedClient};
use super::runtime::test_runtime;
use super::server::{Effects, Recorded, Round};
use super::session::{Era, connect, params, text_of};

/// The audience the kit's runtime seals for.
pub const KIT_AUDIENCE: &str = "mrtr-testing";

/// The most `input_required` rounds a kit-driven call makes, as rmcp's driver
/// (`DEFAULT_MRTR_MAX_ROUNDS`).
pub const MAX_ROUNDS: usize = 10;

/// What one call did: its result, the rounds the server saw, what user code ran and what the
/// client was asked.
#[derive(Debug)]
pub struct Run {
    /// The era the call ran in.
    pub era: Era,
    /// The final result, or the JSON-RPC (or client) error.
    pub result: Result<CallToolResult, ServiceError>,
    /// Every `tools/call` request the server saw (one on a legacy session).
    pub rounds: Vec<Round>,
    /// The effect log after the call.
    pub effects: Vec<String>,
    /// Every request the client was asked, in order.
    pub received: Vec<Received>,
}

/// Where a kit-driven call gets its client: a [`ScriptedClient`] (replayed fresh for each run,
/// see [`ScriptedClient::replay`]) or a closure building one.
pub trait MakeClient {
    /// A client with the script and an empty record.
    fn make_client(&self) -> ScriptedClient;
}

impl MakeClient for ScriptedClient {
    fn make_client(&self) -> ScriptedClient {
        self.replay()
    }
}

impl<F: Fn() -> ScriptedClient> MakeClient for F {
    fn make_client(&self) -> ScriptedClient {
        self()
    }
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

    /// The ask key of every request the client received, in order: the wire keys on 2026-07-28,
    /// the names the client gave live requests on a legacy session (`?` for a request it could
    /// not name).
    pub fn ask_keys(&self) -> Vec<String> {
        self.received
            .iter()
            .map(|r| r.ask_key.clone().unwrap_or_else(|| "?".to_owned()))
            .collect()
    }

    /// Asserts the final result, as [`outcome`](Self::outcome) spells it.
    #[track_caller]
    pub fn assert_outcome(&self, expected: &str) -> &Self {
        assert_eq!(self.outcome(), expected, "{:?} outcome", self.era);
        self
    }

    /// Asserts how many rounds ended in `input_required` (always 0 on a legacy session).
    #[track_caller]
    pub fn assert_rounds(&self, expected: usize) -> &Self {
        assert_eq!(
            self.input_required(),
            expected,
            "{:?}: input_required rounds: {:#?}",
            self.era,
            self.rounds
        );
        self
    }

    /// Asserts the `inputRequests` keys of each `input_required` round (2026-07-28), e.g.
    /// `&[&["target_env"]]`.
    #[track_caller]
    pub fn assert_asked_keys(&self, expected: &[&[&str]]) -> &Self {
        let expected: Vec<Vec<String>> = expected
            .iter()
            .map(|round| round.iter().map(|key| (*key).to_owned()).collect())
            .collect();
        assert_eq!(
            self.asked_keys(),
            expected,
            "{:?}: keys asked per round",
            self.era
        );
        self
    }

    /// Asserts the effect log.
    #[track_caller]
    pub fn assert_effects(&self, expected: &[&str]) -> &Self {
        assert_eq!(self.effects, expected, "{:?}: effect log", self.era);
        self
    }
}

/// Serves a fresh server from `make` (wrapped in [`Recorded`], with the kit's runtime), calls
/// `tool` once with `arguments` as an application would (on 2026-07-28 rmcp's driver answers
/// every round through `client`), and collects the run.
pub async fn run<H, F>(
    era: Era,
    make: F,
    client: impl MakeClient,
    tool: &str,
    arguments: Value,
) -> Run
where
    H: Service<RoleServer>,
    F: FnOnce(Effects) -> H,
{
    let client = client.make_client();
    let effects = Effects::default();
    let server = Recorded::new(make(effects.clone()), Some(test_runtime(KIT_AUDIENCE)));
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

/// The call on 2026-07-28 with every round on a freshly constructed server (and a freshly
/// constructed runtime with the same keys), sharing only the effect log: proves the handler keeps
/// nothing in memory between rounds. The kit makes the rounds itself, answering each
/// `inputRequests` entry through `client` as rmcp's driver would.
pub async fn run_fresh<H, F>(make: F, client: impl MakeClient, tool: &str, arguments: Value) -> Run
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H,
{
    let client = client.make_client();
    let effects = Effects::default();
    let mut rounds = Vec::new();
    let mut request = params(tool, arguments);
    let mut result = Err(ServiceError::InputRequiredRoundsExceeded {
        max_rounds: MAX_ROUNDS,
    });
    for _ in 0..=MAX_ROUNDS {
        let server = Recorded::new(make(effects.clone()), Some(test_runtime(KIT_AUDIENCE)));
        let transcript = server.transcript();
        let session = connect(server, client.clone(), Era::Modern).await;
        let response = session.call_once(request.clone()).await;
        session.close().await;
        rounds.extend(transcript.rounds());
        let input_required = match response {
            Ok(CallToolResponse::InputRequired(input_required)) => input_required,
            Ok(CallToolResponse::Complete(complete)) => {
                result = Ok(complete);
                break;
            }
            Ok(_) => {
                result = Err(ServiceError::UnexpectedResponse);
                break;
            }
            Err(error) => {
                result = Err(error);
                break;
            }
        };
        match answer_all(&client, &input_required) {
            Ok(responses) => {
                request.input_responses = (!responses.is_empty()).then_some(responses);
                request.request_state = input_required.request_state;
            }
            Err(error) => {
                result = Err(ServiceError::McpError(error));
                break;
            }
        }
    }
    Run {
        era: Era::Modern,
        result,
        rounds,
        effects: effects.all(),
        received: client.received(),
    }
}

/// The client's answers to every `inputRequests` entry of one round.
pub(super) fn answer_all(
    client: &ScriptedClient,
    input_required: &rmcp::model::InputRequiredResult,
) -> Result<InputResponses, rmcp::ErrorData> {
    input_required
        .input_requests
        .iter()
        .flatten()
        .map(|(key, request)| Ok((key.clone(), client.respond(key, request)?)))
        .collect()
}

/// The same call in both eras, each against a fresh server and a fresh scripted client.
#[derive(Debug)]
pub struct Both {
    /// The 2026-07-28 run.
    pub modern: Run,
    /// The legacy run.
    pub legacy: Run,
}

/// Runs the call on 2026-07-28, then on a legacy session whose client names its live requests by
/// the 2026-07-28 run's asks (see the module docs on legacy keys).
pub async fn run_both<H, F>(make: F, client: impl MakeClient, tool: &str, arguments: Value) -> Both
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H,
{
    let modern = run(
        Era::Modern,
        &make,
        client.make_client(),
        tool,
        arguments.clone(),
    )
    .await;
    let legacy_client = client.make_client().legacy_order_from(&modern.received);
    let legacy = run(Era::Legacy, &make, legacy_client, tool, arguments).await;
    Both { modern, legacy }
}

impl Both {
    /// The shared assertions of the behaviour table:
    /// - both eras end with `expected`, and the legacy run is the straight-line reference;
    /// - the modern call took `rounds` `input_required` rounds, the legacy call none;
    /// - the legacy call sent one real request per ask, `asks` in all, and the modern call had
    ///   the client answer exactly as many, the same questions in the same order;
    /// - user code ran identically: both eras leave the same effect log, so nothing ran twice.
    #[track_caller]
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

    /// Asserts that both eras ended the same way and left the same effect log.
    #[track_caller]
    pub fn assert_equivalent(&self) -> &Self {
        assert_eq!(
            self.modern.outcome(),
            self.legacy.outcome(),
            "outcome, 2026-07-28 vs legacy"
        );
        assert_eq!(
            self.modern.effects, self.legacy.effects,
            "effect log, 2026-07-28 vs legacy"
        );
        self
    }
}
