//! The hostile suite: one call per tool runs every attack a client can make on a suspended call
//! and checks that the server keeps the README's promises.
//!
//! Every case opens a fresh dialogue (round 1 on a fresh server, which must answer
//! `input_required`), then sends one hostile round 2 to another fresh server built by the same
//! factory with the same keys, and compares the effect log before and after it:
//!
//! | case | sent in round 2 | promised |
//! |---|---|---|
//! | `tamper` | `requestState` with a bit flipped (body start, middle, end; key id; version prefix) | `-32602`, nothing re-run |
//! | `truncation` | `requestState` cut short (one character, half, header only, empty) | `-32602`, nothing re-run |
//! | `suffix` | `requestState` with bytes appended | `-32602`, nothing re-run |
//! | `cross-tool` | this tool's state on another tool, another tool's state on this one | `-32602`, nothing re-run |
//! | `cross-arguments` | the state with one argument changed | `-32602`, nothing re-run |
//! | `cross-principal` | the state of user `alice` presented by `mallory`, or anonymously | `-32602`, nothing re-run |
//! | `cross-service` | a state sealed for another audience, or under a key this server does not hold | `-32602`, nothing re-run |
//! | `expired` | the state one second past its TTL (a test clock, no sleeping) | `-32602`, nothing re-run |
//! | `oversize` | a state over the size cap; `inputResponses` over the key, depth or byte limits | `-32602`, nothing re-run |
//! | `malformed-answer` | one key answered with something that is not an answer of its kind | that key asked again, nothing re-run |
//! | `missing-answer` | one key's answer left out; all left out | those keys asked again, nothing re-run |
//! | `junk-key` | the answers plus a key nobody asked; a junk key alone | ignored: same result and effects as the genuine retry; asked again |
//! | `capability-missing` | round 1 from a client lacking one capability the tool asks for | never asked: a fallback, or `-32021` with `requiredCapabilities`; on a legacy session no request of that kind |
//!
//! A genuine retry (`control`) runs first: if it is refused, the other verdicts would mean
//! nothing, and the report says so.

mod forgery;
mod report;
mod verdicts;

use std::sync::Arc;

use rmcp::model::{CallToolResponse, InputRequiredResult, InputResponses};
use rmcp::service::{RoleServer, Service, ServiceError};
use serde_json::{Value, json};

use super::client::{Caps, ScriptedClient};
use super::run::{KIT_AUDIENCE, MakeClient, answer_all};
use super::runtime::{TEST_KEY, TestClock, runtime_with, test_runtime};
use super::schema_values::generated_reply;
use super::server::{Effects, Recorded};
use super::session::{Era, connect, params};
use crate::Runtime;
use crate::config::{DEFAULT_MAX_BYTES, DEFAULT_TTL};
use crate::limits::Limits;
use forgery::{
    JUNK_KEY, changed_argument, flip_body, malformed_answers, method_of, needed_capabilities,
    other_kid, other_version, without,
};
pub use report::{Case, HostileReport, Verdict};
use verdicts::{asked_again, describe, never_asked_modern, push, refusal, shape};

/// JSON-RPC "invalid params": every refused `requestState` and every oversized `inputResponses`.
pub const INVALID_PARAMS: i32 = -32602;
/// The spec's "missing required client capability".
pub const MISSING_CAPABILITY: i32 = -32021;

/// The hostile suite for `tool` called with `arguments`, against servers built by `make` (see
/// the [module docs](self) for the cases). `arguments` must make the tool ask for input.
///
/// ```no_run
/// # async fn example<H: rmcp::Service<rmcp::RoleServer>>(make: impl Fn(mrtr::testing::Effects) -> H) {
/// mrtr::testing::hostile(make, "deploy_service", serde_json::json!({ "service": "api" }))
///     .run()
///     .await
///     .assert_ok();
/// # }
/// ```
pub fn hostile<H, F>(make: F, tool: &str, arguments: Value) -> Hostile<F>
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H,
{
    Hostile {
        make,
        tool: tool.to_owned(),
        arguments,
        client: ScriptedClient::new(Caps::ALL).otherwise(|request| generated_reply(request, 0)),
        cross_tool: None,
    }
}

/// A hostile suite, ready to [`run`](Self::run).
pub struct Hostile<F> {
    make: F,
    tool: String,
    arguments: Value,
    client: ScriptedClient,
    cross_tool: Option<(String, Value)>,
}

/// Who makes a round, and with which runtime.
#[derive(Clone)]
struct Setup {
    runtime: Arc<Runtime>,
    principal: Option<&'static str>,
}

impl Setup {
    fn kit() -> Self {
        Setup {
            runtime: test_runtime(KIT_AUDIENCE),
            principal: None,
        }
    }

    fn with_runtime(runtime: Arc<Runtime>) -> Self {
        Setup {
            runtime,
            principal: None,
        }
    }

    fn as_principal(principal: &'static str) -> Self {
        Setup {
            principal: Some(principal),
            ..Setup::kit()
        }
    }
}

/// A dialogue suspended after round 1.
struct Opened {
    effects: Effects,
    /// The effect log right after round 1.
    after_open: Vec<String>,
    state: String,
    input_required: InputRequiredResult,
    /// The genuine answers to round 1's asks.
    answers: InputResponses,
}

/// One hostile round 2.
struct Attack {
    tool: String,
    arguments: Value,
    responses: Option<InputResponses>,
    state: Option<String>,
}

type Response = Result<CallToolResponse, ServiceError>;

/// How a `tamper`, `truncation` or `suffix` case changes a token.
type Tamper = fn(&str) -> String;

impl<H, F> Hostile<F>
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H,
{
    /// The client that answers the genuine rounds (default: every capability, content generated
    /// from each request's schema with [`generated_reply`]).
    pub fn client(mut self, client: impl MakeClient) -> Self {
        self.client = client.make_client();
        self
    }

    /// Another tool of the same server that asks for input when called with `arguments`, for the
    /// cross-tool cases. Without it the suite tries every other listed tool with this tool's
    /// arguments and skips the cases if none asks.
    pub fn cross_tool(mut self, tool: &str, arguments: Value) -> Self {
        self.cross_tool = Some((tool.to_owned(), arguments));
        self
    }

    /// Runs every case.
    pub async fn run(self) -> HostileReport {
        let mut cases = Vec::new();
        let opened = self.open(&self.tool, &self.arguments, &Setup::kit()).await;
        match opened {
            Ok(_) => {
                self.control(&mut cases).await;
                self.state_cases(&mut cases).await;
                self.cross_cases(&mut cases).await;
                self.limit_cases(&mut cases).await;
                self.answer_cases(&mut cases).await;
            }
            Err(why) => cases.push(Case {
                name: "dialogue".into(),
                verdict: Verdict::Broken(format!(
                    "round 1 must answer input_required for the suite to attack it: {why}"
                )),
            }),
        }
        self.capability_cases(&mut cases).await;
        HostileReport {
            tool: self.tool,
            cases,
        }
    }

    async fn round(&self, setup: &Setup, effects: &Effects, attack: Attack) -> Response {
        let mut server = Recorded::new((self.make)(effects.clone()), Some(setup.runtime.clone()));
        if let Some(principal) = setup.principal {
            server = server.as_principal(principal);
        }
        let session = connect(server, self.client.replay(), Era::Modern).await;
        let mut request = params(&attack.tool, attack.arguments);
        request.input_responses = attack.responses;
        request.request_state = attack.state;
        let response = session.call_once(request).await;
        session.close().await;
        response
    }

    async fn open(&self, tool: &str, arguments: &Value, setup: &Setup) -> Result<Opened, String> {
        let effects = Effects::default();
        let first = Attack {
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            responses: None,
            state: None,
        };
        let input_required = match self.round(setup, &effects, first).await {
            Ok(CallToolResponse::InputRequired(input_required)) => input_required,
            other => return Err(describe(&other)),
        };
        let state = input_required
            .request_state
            .clone()
            .ok_or("input_required without a requestState")?;
        let answers = answer_all(&self.client.replay(), &input_required)
            .map_err(|error| format!("the suite's client cannot answer round 1: {error:?}"))?;
        Ok(Opened {
            after_open: effects.all(),
            effects,
            state,
            input_required,
            answers,
        })
    }

    /// Opens a dialogue as `opener`, sends `attack(opened)` as `attacker`, and expects a refusal.
    async fn refused(
        &self,
        cases: &mut Vec<Case>,
        name: &str,
        opener: &Setup,
        attacker: &Setup,
        attack: impl FnOnce(&Opened) -> Attack,
    ) {
        let verdict = match self.open(&self.tool, &self.arguments, opener).await {
            Ok(opened) => {
                let response = self.round(attacker, &opened.effects, attack(&opened)).await;
                refusal(&response, &opened)
            }
            Err(why) => Verdict::Broken(format!("could not open the dialogue: {why}")),
        };
        push(cases, name, verdict);
    }

    fn retry(&self, opened: &Opened, state: String) -> Attack {
        Attack {
            tool: self.tool.clone(),
            arguments: self.arguments.clone(),
            responses: Some(opened.answers.clone()),
            state: Some(state),
        }
    }

    fn with_answers(&self, opened: &Opened, answers: InputResponses) -> Attack {
        Attack {
            responses: (!answers.is_empty()).then_some(answers),
            ..self.retry(opened, opened.state.clone())
        }
    }

    /// The genuine retry every other case is measured against.
    async fn genuine(&self) -> Result<(Response, Vec<String>), String> {
        let opened = self
            .open(&self.tool, &self.arguments, &Setup::kit())
            .await?;
        let response = self
            .round(
                &Setup::kit(),
                &opened.effects,
                self.retry(&opened, opened.state.clone()),
            )
            .await;
        Ok((response, opened.effects.all()))
    }

    async fn control(&self, cases: &mut Vec<Case>) {
        let verdict = match self.genuine().await {
            Ok((Ok(_), _)) => Verdict::Held,
            Ok((other, _)) => Verdict::Broken(format!(
                "a genuine retry with the suite's answers was refused ({}); set .client(..) to answer as your tool expects",
                describe(&other)
            )),
            Err(why) => Verdict::Broken(why),
        };
        push(cases, "control: a genuine retry is accepted", verdict);
    }

    async fn state_cases(&self, cases: &mut Vec<Case>) {
        let kit = Setup::kit();
        let tampered: [(&str, Tamper); 12] = [
            (
                "tamper: bit flip at the first byte of the sealed body",
                |s| flip_body(s, |_| 0),
            ),
            ("tamper: bit flip in the middle of the sealed body", |s| {
                flip_body(s, |n| n / 2)
            }),
            (
                "tamper: bit flip at the last byte of the sealed body",
                |s| flip_body(s, |n| n - 1),
            ),
            ("tamper: another key id", other_kid),
            ("tamper: another format version", other_version),
            ("truncation: one character short", |s| {
                s[..s.len() - 1].to_owned()
            }),
            ("truncation: half the token", |s| {
                s[..s.len() / 2].to_owned()
            }),
            ("truncation: the header only", |s| {
                s[..=s.rfind('.').unwrap_or(0)].to_owned()
            }),
            ("truncation: empty", |_| String::new()),
            ("suffix: one base64url character", |s| format!("{s}A")),
            ("suffix: another dot-separated part", |s| {
                format!("{s}.AAAA")
            }),
            ("oversize: a requestState over the size cap", |s| {
                format!(
                    "{s}{}",
                    "A".repeat(DEFAULT_MAX_BYTES + 1 - s.len().min(DEFAULT_MAX_BYTES))
                )
            }),
        ];
        for (name, tamper) in tampered {
            self.refused(cases, name, &kit, &kit, |opened| {
                self.retry(opened, tamper(&opened.state))
            })
            .await;
        }
        self.refused(
            cases,
            "cross-arguments: one argument changed",
            &kit,
            &kit,
            |opened| Attack {
                arguments: changed_argument(&self.arguments),
                ..self.retry(opened, opened.state.clone())
            },
        )
        .await;
        // Who seals the state, and who presents it untouched.
        let alice = Setup::as_principal("alice");
        let foreign = [
            (
                "cross-principal: alice's state presented by mallory",
                alice.clone(),
                Setup::as_principal("mallory"),
            ),
            (
                "cross-principal: alice's state presented anonymously",
                alice,
                kit.clone(),
            ),
            (
                "cross-service: a state sealed for another audience",
                Setup::with_runtime(test_runtime("another-service")),
                kit.clone(),
            ),
            (
                "cross-service: a state sealed under a key this server does not hold",
                Setup::with_runtime(runtime_with(KIT_AUDIENCE, &[0x5a; 32], None)),
                kit.clone(),
            ),
        ];
        for (name, opener, presenter) in foreign {
            self.refused(cases, name, &opener, &presenter, |opened| {
                self.retry(opened, opened.state.clone())
            })
            .await;
        }
        let clock = TestClock::now();
        let clocked = Setup::with_runtime(runtime_with(KIT_AUDIENCE, &TEST_KEY, Some(&clock)));
        let verdict = match self.open(&self.tool, &self.arguments, &clocked).await {
            Ok(opened) => {
                clock.advance(DEFAULT_TTL.as_secs() + 1);
                let attack = self.retry(&opened, opened.state.clone());
                refusal(
                    &self.round(&clocked, &opened.effects, attack).await,
                    &opened,
                )
            }
            Err(why) => Verdict::Broken(format!("could not open the dialogue: {why}")),
        };
        push(cases, "expired: one second past the TTL", verdict);
    }

    async fn cross_cases(&self, cases: &mut Vec<Case>) {
        let kit = Setup::kit();
        let Some((other_tool, other_arguments, theirs)) = self.other_dialogue().await else {
            let why = "no other tool of this server asks for input with these arguments; name one with .cross_tool(..)";
            for name in [
                "cross-tool: this tool's state on another tool",
                "cross-tool: another tool's state on this tool",
            ] {
                push(cases, name, Verdict::Skipped(why.into()));
            }
            return;
        };
        self.refused(
            cases,
            "cross-tool: this tool's state on another tool",
            &kit,
            &kit,
            |opened| Attack {
                tool: other_tool.clone(),
                arguments: other_arguments.clone(),
                responses: Some(theirs.answers.clone()),
                state: Some(opened.state.clone()),
            },
        )
        .await;
        self.refused(
            cases,
            "cross-tool: another tool's state on this tool",
            &kit,
            &kit,
            |opened| self.retry(opened, theirs.state.clone()),
        )
        .await;
    }

    /// A suspended dialogue of another tool: the one named, or the first listed that asks.
    async fn other_dialogue(&self) -> Option<(String, Value, Opened)> {
        let kit = Setup::kit();
        if let Some((tool, arguments)) = &self.cross_tool {
            let opened = self.open(tool, arguments, &kit).await.ok()?;
            return Some((tool.clone(), arguments.clone(), opened));
        }
        let server = Recorded::new((self.make)(Effects::default()), Some(kit.runtime.clone()));
        let session = connect(server, self.client.replay(), Era::Modern).await;
        let tools = session.peer().list_all_tools().await.unwrap_or_default();
        session.close().await;
        for tool in tools.iter().filter(|tool| tool.name != self.tool.as_str()) {
            if let Ok(opened) = self.open(&tool.name, &self.arguments, &kit).await {
                return Some((tool.name.to_string(), self.arguments.clone(), opened));
            }
        }
        None
    }

    async fn limit_cases(&self, cases: &mut Vec<Case>) {
        let kit = Setup::kit();
        let limits = Limits::default();
        let too_many = limits.max_keys + 1;
        let too_deep = limits.max_depth + 8;
        let too_big = limits.max_bytes + 1;
        let oversized: [(String, Box<dyn Fn() -> InputResponses>); 3] = [
            (
                format!("oversize: {too_many} inputResponses keys"),
                Box::new(move || {
                    (0..too_many)
                        .map(|i| (format!("junk{i}"), json!({})))
                        .collect()
                }),
            ),
            (
                format!("oversize: inputResponses nested {too_deep} deep"),
                Box::new(move || {
                    let deep = (0..too_deep).fold(json!(0), |inner, _| json!([inner]));
                    [("junk".to_owned(), deep)].into_iter().collect()
                }),
            ),
            (
                format!("oversize: inputResponses of {too_big} bytes"),
                Box::new(move || {
                    [("junk".to_owned(), json!("x".repeat(too_big)))]
                        .into_iter()
                        .collect()
                }),
            ),
        ];
        for (name, responses) in oversized {
            self.refused(cases, &name, &kit, &kit, |opened| {
                let mut answers = opened.answers.clone();
                answers.extend(responses());
                self.with_answers(opened, answers)
            })
            .await;
        }
    }

    async fn answer_cases(&self, cases: &mut Vec<Case>) {
        let kit = Setup::kit();
        let Ok(opened) = self.open(&self.tool, &self.arguments, &kit).await else {
            return;
        };
        let requests = opened
            .input_required
            .input_requests
            .clone()
            .unwrap_or_default();
        for (key, request) in &requests {
            for (what, malformed) in malformed_answers(request) {
                let name = format!("malformed-answer: `{key}` answered with {what}");
                self.asked_again(cases, &name, &[key.as_str()], |opened| {
                    let mut answers = opened.answers.clone();
                    answers.insert(key.clone(), malformed.clone());
                    self.with_answers(opened, answers)
                })
                .await;
            }
            let name = format!("missing-answer: `{key}` left out");
            self.asked_again(cases, &name, &[key.as_str()], |opened| {
                let mut answers = opened.answers.clone();
                answers.remove(key);
                self.with_answers(opened, answers)
            })
            .await;
        }
        let all: Vec<&str> = requests.keys().map(String::as_str).collect();
        self.asked_again(
            cases,
            "missing-answer: every answer left out",
            &all,
            |opened| self.with_answers(opened, InputResponses::new()),
        )
        .await;
        self.asked_again(
            cases,
            "junk-key: a key nobody asked, instead of the answers",
            &all,
            |opened| {
                self.with_answers(
                    opened,
                    [(JUNK_KEY.to_owned(), json!({ "action": "accept" }))]
                        .into_iter()
                        .collect(),
                )
            },
        )
        .await;
        self.junk_beside_answers(cases).await;
    }

    /// Sends `attack(opened)` and expects `input_required` asking at least `keys`, with nothing
    /// re-run.
    async fn asked_again(
        &self,
        cases: &mut Vec<Case>,
        name: &str,
        keys: &[&str],
        attack: impl FnOnce(&Opened) -> Attack,
    ) {
        let kit = Setup::kit();
        let verdict = match self.open(&self.tool, &self.arguments, &kit).await {
            Ok(opened) => {
                let response = self.round(&kit, &opened.effects, attack(&opened)).await;
                asked_again(&response, keys, &opened)
            }
            Err(why) => Verdict::Broken(format!("could not open the dialogue: {why}")),
        };
        push(cases, name, verdict);
    }

    async fn junk_beside_answers(&self, cases: &mut Vec<Case>) {
        let kit = Setup::kit();
        let name = "junk-key: a key nobody asked, beside the answers";
        let (genuine, genuine_effects) = match self.genuine().await {
            Ok(genuine) => genuine,
            Err(why) => return push(cases, name, Verdict::Broken(why)),
        };
        let verdict = match self.open(&self.tool, &self.arguments, &kit).await {
            Ok(opened) => {
                let mut answers = opened.answers.clone();
                answers.insert(JUNK_KEY.to_owned(), json!({ "action": "accept" }));
                let response = self
                    .round(&kit, &opened.effects, self.with_answers(&opened, answers))
                    .await;
                let effects = opened.effects.all();
                if shape(&response) != shape(&genuine) {
                    Verdict::Broken(format!(
                        "answered {} where the genuine retry answered {}",
                        describe(&response),
                        describe(&genuine)
                    ))
                } else if effects != genuine_effects {
                    Verdict::Broken(format!(
                        "effects {effects:?} where the genuine retry left {genuine_effects:?}"
                    ))
                } else {
                    Verdict::Held
                }
            }
            Err(why) => Verdict::Broken(format!("could not open the dialogue: {why}")),
        };
        push(cases, name, verdict);
    }

    async fn capability_cases(&self, cases: &mut Vec<Case>) {
        let needed = match self.open(&self.tool, &self.arguments, &Setup::kit()).await {
            Ok(opened) => needed_capabilities(&opened.input_required),
            Err(_) => Vec::new(),
        };
        if needed.is_empty() {
            let why = "round 1 with every capability asked for nothing";
            push(cases, "capability-missing", Verdict::Skipped(why.into()));
        }
        for capability in needed {
            let caps = without(capability);
            let client =
                || ScriptedClient::new(caps).otherwise(|request| generated_reply(request, 0));
            let kit = Setup::kit();
            let effects = Effects::default();
            let mut server = Recorded::new((self.make)(effects.clone()), Some(kit.runtime.clone()));
            let session = connect(server, client(), Era::Modern).await;
            let response = session
                .call_once(params(&self.tool, self.arguments.clone()))
                .await;
            session.close().await;
            let name = format!("capability-missing: a 2026-07-28 request without `{capability}`");
            push(cases, &name, never_asked_modern(&response, capability));

            server = Recorded::new((self.make)(Effects::default()), Some(kit.runtime.clone()));
            let client = client();
            let session = connect(server, client.clone(), Era::Legacy).await;
            let result = session.call(&self.tool, self.arguments.clone()).await;
            session.close().await;
            let sent: Vec<&'static str> = client.received().iter().map(|r| r.method).collect();
            let verdict = if sent.contains(&method_of(capability)) {
                Verdict::Broken(format!(
                    "sent a live `{}` to a session without `{capability}`",
                    method_of(capability)
                ))
            } else {
                match &result {
                    Ok(_) => Verdict::Held,
                    Err(ServiceError::McpError(error)) if error.code.0 == MISSING_CAPABILITY => {
                        Verdict::Held
                    }
                    Err(other) => Verdict::Broken(format!("failed with {other}")),
                }
            };
            let name = format!("capability-missing: a legacy session without `{capability}`");
            push(cases, &name, verdict);
        }
    }
}
