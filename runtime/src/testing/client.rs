//! A scripted MCP client: answers elicitation, sampling and roots requests from a script, by ask
//! key or by the request's own text, and records every request it received, in order.
//!
//! The same handler serves both eras. On a legacy session rmcp calls it for each real
//! server-initiated request; on 2026-07-28 rmcp's `call_tool` driver calls it once per
//! `inputRequests` entry, with the entry's key as the request id. So "what the client was asked"
//! reads the same whichever era ran, and a test can compare the two. A live legacy request has
//! no key on the wire; [`LegacyNames`](super::legacy_names) says how the client names it.
#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of the protocol

use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientInfo, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation, InputRequest,
    ListRootsResult, NumberOrString, Root, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Value, json};

use super::legacy_names::LegacyNames;
pub use super::received::Received;

/// Which client capabilities the scripted client declares (at `initialize` on a legacy
/// session, in every request's `_meta` on 2026-07-28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// `elicitation.form`.
    pub elicitation_form: bool,
    /// `elicitation.url`.
    pub elicitation_url: bool,
    /// `sampling`.
    pub sampling: bool,
    /// `roots`.
    pub roots: bool,
}

impl Caps {
    /// A client that can answer nothing.
    pub const NONE: Caps = Caps {
        elicitation_form: false,
        elicitation_url: false,
        sampling: false,
        roots: false,
    };
    /// A client that declares every capability an `ask!` can need.
    pub const ALL: Caps = Caps {
        elicitation_form: true,
        elicitation_url: true,
        sampling: true,
        roots: true,
    };
    /// A client that can show forms and nothing else.
    pub const FORM_ONLY: Caps = Caps {
        elicitation_form: true,
        ..Caps::NONE
    };

    /// The capabilities as rmcp declares them.
    pub fn to_rmcp(self) -> ClientCapabilities {
        let mut declared = serde_json::Map::new();
        let mut elicitation = serde_json::Map::new();
        if self.elicitation_form {
            elicitation.insert("form".into(), json!({}));
        }
        if self.elicitation_url {
            elicitation.insert("url".into(), json!({}));
        }
        if !elicitation.is_empty() {
            declared.insert("elicitation".into(), Value::Object(elicitation));
        }
        if self.sampling {
            declared.insert("sampling".into(), json!({}));
        }
        if self.roots {
            declared.insert("roots".into(), json!({ "listChanged": false }));
        }
        serde_json::from_value(Value::Object(declared))
            .expect("rmcp's ClientCapabilities accepts every capability the kit declares")
    }
}

/// What the client does with one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Elicitation: accept with this `content` (which may deliberately not fit the schema).
    Accept(Value),
    /// Elicitation: accept with no `content` at all.
    AcceptEmpty,
    /// Elicitation: the user declined.
    Decline,
    /// Elicitation: the user dismissed the dialog.
    Cancel,
    /// Sampling: an assistant message with this text.
    Text(String),
    /// Roots: these URIs.
    Roots(Vec<String>),
    /// Any method: fail the request with a JSON-RPC error carrying this message.
    Fail(String),
}

impl Reply {
    /// Whether this reply can answer a request of `method`.
    fn fits(&self, method: &str) -> bool {
        match self {
            Reply::Accept(_) | Reply::AcceptEmpty | Reply::Decline | Reply::Cancel => {
                method == ELICIT
            }
            Reply::Text(_) => method == SAMPLE,
            Reply::Roots(_) => method == ROOTS,
            Reply::Fail(_) => true,
        }
    }
}

/// An elicitation accept with `content`.
pub fn accept(content: Value) -> Reply {
    Reply::Accept(content)
}

/// A sampling answer with `text`.
pub fn text(text: impl Into<String>) -> Reply {
    Reply::Text(text.into())
}

/// A roots answer listing `uris`.
pub fn root_uris<I: IntoIterator<Item = S>, S: Into<String>>(uris: I) -> Reply {
    Reply::Roots(uris.into_iter().map(Into::into).collect())
}

/// A reply computed from the request, for answers that depend on what was asked.
type Compute = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

/// One scripted answer: fixed, or computed when the request arrives.
#[derive(Clone)]
enum Responder {
    Fixed(Reply),
    Computed(Compute),
}

impl Responder {
    fn reply(&self, request: &Received) -> Reply {
        match self {
            Responder::Fixed(reply) => reply.clone(),
            Responder::Computed(compute) => compute(request),
        }
    }

    /// Whether this answer can be meant for a request of `method` (a closure can answer any).
    fn fits(&self, method: &str) -> bool {
        match self {
            Responder::Fixed(reply) => reply.fits(method),
            Responder::Computed(_) => true,
        }
    }
}

impl fmt::Debug for Responder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Responder::Fixed(reply) => reply.fmt(f),
            Responder::Computed(_) => f.write_str("<closure>"),
        }
    }
}

/// Which requests a rule answers.
#[derive(Clone, Debug, PartialEq)]
enum Matcher {
    /// The ask with this key: exactly, or every iteration of it (`confirm` answers `confirm#0`).
    Key(String),
    /// A form or URL elicitation whose message contains the text.
    Elicit(String),
    /// A sampling request one of whose messages (or the system prompt) contains the text.
    Sample(String),
    /// Every `roots/list`.
    Roots,
    /// Any request no other rule answers.
    Any,
}

impl Matcher {
    fn matches(&self, request: &Received) -> bool {
        match self {
            Matcher::Key(key) => request
                .ask_key
                .as_deref()
                .is_some_and(|asked| asked == key || base_key(asked) == key),
            Matcher::Elicit(needle) => {
                request.method == ELICIT && request.text.contains(needle.as_str())
            }
            Matcher::Sample(needle) => {
                request.method == SAMPLE && request.text.contains(needle.as_str())
            }
            Matcher::Roots => request.method == ROOTS,
            Matcher::Any => true,
        }
    }

    /// Exact key rules win over per-iteration ones, and key rules over text rules.
    fn precedence(&self, request: &Received) -> u8 {
        match self {
            Matcher::Key(key) if request.ask_key.as_deref() == Some(key.as_str()) => 0,
            Matcher::Key(_) => 1,
            Matcher::Any => 3,
            _ => 2,
        }
    }
}

/// The key an `ask!` was written with: `confirm` for the per-iteration wire key `confirm#2`.
pub fn base_key(key: &str) -> &str {
    key.split_once('#').map_or(key, |(base, _)| base)
}

/// A rule: every matching request takes the next answer; the last answer repeats.
#[derive(Clone, Debug)]
struct Rule {
    matcher: Matcher,
    answers: Vec<Responder>,
    /// How many answers this rule has given.
    used: usize,
}

impl Rule {
    fn next_answer(&mut self) -> Responder {
        let answer = self.answers[self.used.min(self.answers.len() - 1)].clone();
        self.used += 1;
        answer
    }
}

/// The method name of a form or URL elicitation.
pub const ELICIT: &str = "elicitation/create";
/// The method name of a sampling request.
pub const SAMPLE: &str = "sampling/createMessage";
/// The method name of a roots request.
pub const ROOTS: &str = "roots/list";

struct Script {
    caps: Caps,
    rules: Mutex<Vec<Rule>>,
    received: Mutex<Vec<Received>>,
    legacy_names: Mutex<LegacyNames>,
}

/// The scripted client. Cheap to clone: clones share the script and the record.
///
/// Script it per ask key ([`accept`](Self::accept), [`decline`](Self::decline),
/// [`cancel`](Self::cancel), [`sampled`](Self::sampled), [`roots`](Self::roots),
/// [`answer_with`](Self::answer_with)) or by the question's text ([`on_elicit`](Self::on_elicit),
/// [`on_sample`](Self::on_sample), [`on_roots`](Self::on_roots)). Scripting the same key twice
/// queues a second answer: a key asked again (its first answer did not fit the form) takes the
/// next one; the last one repeats. A request nobody scripted fails with a JSON-RPC error naming
/// it, so a test never passes on an answer it did not choose.
#[derive(Clone)]
pub struct ScriptedClient {
    script: Arc<Script>,
}

impl fmt::Debug for ScriptedClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedClient")
            .field("caps", &self.script.caps)
            .field("rules", &*lock(&self.script.rules))
            .finish()
    }
}

impl ScriptedClient {
    /// A client declaring `caps`, with an empty script.
    pub fn new(caps: Caps) -> Self {
        ScriptedClient {
            script: Arc::new(Script {
                caps,
                rules: Mutex::new(Vec::new()),
                received: Mutex::new(Vec::new()),
                legacy_names: Mutex::new(LegacyNames::default()),
            }),
        }
    }

    /// A fresh client with the same capabilities, script and legacy naming, and an empty record:
    /// for running the same script again (on another era, or against a fresh server).
    pub fn replay(&self) -> Self {
        let client = ScriptedClient::new(self.script.caps);
        *lock(&client.script.rules) = lock(&self.script.rules)
            .iter()
            .map(|rule| Rule {
                used: 0,
                ..rule.clone()
            })
            .collect();
        *lock(&client.script.legacy_names) = lock(&self.script.legacy_names).fresh();
        client
    }

    fn rule(self, matcher: Matcher, answers: impl IntoIterator<Item = Responder>) -> Self {
        let answers: Vec<Responder> = answers.into_iter().collect();
        assert!(
            !answers.is_empty(),
            "a scripted rule needs at least one answer"
        );
        {
            let mut rules = lock(&self.script.rules);
            match rules.iter_mut().find(|rule| rule.matcher == matcher) {
                Some(rule) => rule.answers.extend(answers),
                None => rules.push(Rule {
                    matcher,
                    answers,
                    used: 0,
                }),
            }
        }
        self
    }

    fn keyed(self, key: &str, reply: Reply) -> Self {
        self.rule(Matcher::Key(key.to_owned()), [Responder::Fixed(reply)])
    }

    /// Answers the ask `key` (and each iteration of it, `key#0`, `key#1`, ..) by accepting the
    /// form with `content`.
    pub fn accept(self, key: &str, content: Value) -> Self {
        self.keyed(key, Reply::Accept(content))
    }

    /// Answers the ask `key` by declining.
    pub fn decline(self, key: &str) -> Self {
        self.keyed(key, Reply::Decline)
    }

    /// Answers the ask `key` by cancelling (the user dismissed the dialog).
    pub fn cancel(self, key: &str) -> Self {
        self.keyed(key, Reply::Cancel)
    }

    /// Answers the sampling ask `key` with an assistant message of `text`.
    pub fn sampled(self, key: &str, text: impl Into<String>) -> Self {
        self.keyed(key, Reply::Text(text.into()))
    }

    /// Answers the roots ask `key` with these URIs.
    pub fn roots<I: IntoIterator<Item = S>, S: Into<String>>(self, key: &str, uris: I) -> Self {
        self.keyed(key, root_uris(uris))
    }

    /// Answers the ask `key` with any [`Reply`] (e.g. [`Reply::Fail`] or
    /// [`Reply::AcceptEmpty`]).
    pub fn reply(self, key: &str, reply: Reply) -> Self {
        self.keyed(key, reply)
    }

    /// Answers the ask `key` with whatever `compute` returns for the request.
    pub fn answer_with(
        self,
        key: &str,
        compute: impl Fn(&Received) -> Reply + Send + Sync + 'static,
    ) -> Self {
        self.rule(
            Matcher::Key(key.to_owned()),
            [Responder::Computed(Arc::new(compute))],
        )
    }

    /// Answers every request no other rule answers with whatever `compute` returns for it
    /// (e.g. content generated from the request's schema).
    pub fn otherwise(self, compute: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> Self {
        self.rule(Matcher::Any, [Responder::Computed(Arc::new(compute))])
    }

    /// Answers elicitations whose message contains `needle`, in turn with `replies`.
    pub fn on_elicit(self, needle: &str, replies: impl IntoIterator<Item = Reply>) -> Self {
        let answers = replies.into_iter().map(Responder::Fixed);
        self.rule(Matcher::Elicit(needle.to_owned()), answers)
    }

    /// Answers sampling requests whose prompt contains `needle`, in turn with `replies`.
    pub fn on_sample(self, needle: &str, replies: impl IntoIterator<Item = Reply>) -> Self {
        let answers = replies.into_iter().map(Responder::Fixed);
        self.rule(Matcher::Sample(needle.to_owned()), answers)
    }

    /// Answers `roots/list`, in turn with `replies`.
    pub fn on_roots(self, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.rule(Matcher::Roots, replies.into_iter().map(Responder::Fixed))
    }

    /// On a legacy session, names a live request whose text (elicitation message, sampling
    /// prompt) contains `needle` as the ask `key`. The surest of the three ways a live request
    /// is named; see the module docs.
    pub fn legacy_message(self, key: &str, needle: &str) -> Self {
        lock(&self.script.legacy_names).hint(key, needle);
        self
    }

    /// On a legacy session, names live requests by the asks of a 2026-07-28 run of the same
    /// call, in order (`received` is that run's [`Run::received`](super::Run::received)).
    /// [`run_both`](super::run_both) does this for you.
    pub fn legacy_order_from(self, received: &[Received]) -> Self {
        lock(&self.script.legacy_names).learn(received);
        self
    }

    /// The capabilities this client declares.
    pub fn caps(&self) -> Caps {
        self.script.caps
    }

    /// Every request received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        lock(&self.script.received).clone()
    }

    /// The texts (elicitation messages, sampling prompts) of every request received, in order.
    pub fn texts(&self) -> Vec<String> {
        self.received().into_iter().map(|r| r.text).collect()
    }

    /// The ask key of every request received, in order (`None` for a live legacy request the
    /// client could not name).
    pub fn asked_keys(&self) -> Vec<Option<String>> {
        self.received().into_iter().map(|r| r.ask_key).collect()
    }

    /// How many received requests contain `needle` in their text.
    pub fn asked(&self, needle: &str) -> usize {
        self.received()
            .iter()
            .filter(|r| r.text.contains(needle))
            .count()
    }

    /// Forgets every request received so far (the script stays).
    pub fn forget_received(&self) {
        lock(&self.script.received).clear();
    }

    /// Names the request, records it and picks the best matching rule's next answer. A request
    /// nobody scripted fails loudly instead of being silently declined.
    fn answer(&self, mut request: Received) -> Result<Reply, ErrorData> {
        if request.ask_key.is_none() {
            let rules = lock(&self.script.rules);
            let keys_fitting = rules.iter().filter_map(|rule| match &rule.matcher {
                Matcher::Key(key) if rule.answers.iter().any(|a| a.fits(request.method)) => {
                    Some(key.as_str())
                }
                _ => None,
            });
            request.ask_key = lock(&self.script.legacy_names).name(&request, keys_fitting);
        }
        let answer = lock(&self.script.rules)
            .iter_mut()
            .filter(|rule| rule.matcher.matches(&request))
            .min_by_key(|rule| rule.matcher.precedence(&request))
            .map(Rule::next_answer);
        let reply = answer.map(|answer| answer.reply(&request));
        let description = match &request.ask_key {
            Some(key) => format!("{} {key:?} ({:?})", request.method, request.text),
            None => format!("{} {:?}", request.method, request.text),
        };
        lock(&self.script.received).push(request);
        reply.ok_or_else(|| {
            ErrorData::internal_error(
                format!("the scripted client has no answer for {description}"),
                None,
            )
        })
    }

    fn elicit(
        &self,
        request: &ElicitRequestParams,
        key: Option<String>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).unwrap_or(Value::Null);
        let text = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match self.answer(received(ELICIT, key, text, params))? {
            Reply::Accept(content) => {
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
            }
            Reply::AcceptEmpty => Ok(ElicitResult::new(ElicitationAction::Accept)),
            Reply::Decline => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Reply::Cancel => Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Reply::Fail(message) => Err(ErrorData::internal_error(message, None)),
            other => Err(unexpected(ELICIT, &other)),
        }
    }

    fn sample(
        &self,
        request: &CreateMessageRequestParams,
        key: Option<String>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(request).unwrap_or(Value::Null);
        let mut texts: Vec<String> = request.system_prompt.iter().cloned().collect();
        for message in &request.messages {
            let message = serde_json::to_value(message).unwrap_or(Value::Null);
            collect_texts(&message, &mut texts);
        }
        match self.answer(received(SAMPLE, key, texts.join("\n"), params))? {
            Reply::Text(text) => Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text(text),
                "scripted-model".into(),
            )
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)),
            Reply::Fail(message) => Err(ErrorData::internal_error(message, None)),
            other => Err(unexpected(SAMPLE, &other)),
        }
    }

    fn list_roots_for(&self, key: Option<String>) -> Result<ListRootsResult, ErrorData> {
        match self.answer(received(ROOTS, key, String::new(), json!({})))? {
            Reply::Roots(uris) => Ok(ListRootsResult::new(
                uris.into_iter().map(Root::new).collect(),
            )),
            Reply::Fail(message) => Err(ErrorData::internal_error(message, None)),
            other => Err(unexpected(ROOTS, &other)),
        }
    }

    /// The `inputResponses` entry this client gives for one `inputRequests` entry, as rmcp's
    /// driver would put it on the wire: for drivers that make the rounds themselves.
    pub fn respond(&self, key: &str, request: &InputRequest) -> Result<Value, ErrorData> {
        let key = Some(key.to_owned());
        let response = match request {
            InputRequest::Elicitation(request) => to_json(self.elicit(&request.params, key)?),
            InputRequest::CreateMessage(request) => to_json(self.sample(&request.params, key)?),
            InputRequest::ListRoots(_) => to_json(self.list_roots_for(key)?),
            _ => {
                return Err(ErrorData::internal_error(
                    "the scripted client does not know this kind of input request",
                    None,
                ));
            }
        };
        Ok(response)
    }
}

fn to_json(result: impl serde::Serialize) -> Value {
    serde_json::to_value(result).expect("rmcp's result types serialize")
}

fn received(method: &'static str, key: Option<String>, text: String, params: Value) -> Received {
    Received {
        method,
        ask_key: key.clone(),
        key,
        text,
        params,
    }
}

pub(super) use crate::unpoisoned::lock;

fn key_of(context: &RequestContext<RoleClient>) -> Option<String> {
    match &context.id {
        NumberOrString::String(key) => Some(key.to_string()),
        NumberOrString::Number(_) => None,
    }
}

fn unexpected(method: &str, reply: &Reply) -> ErrorData {
    ErrorData::internal_error(
        format!("scripted reply {reply:?} does not fit a {method} request"),
        None,
    )
}

impl ClientHandler for ScriptedClient {
    fn get_info(&self) -> ClientInfo {
        ClientInfo::new(
            self.script.caps.to_rmcp(),
            Implementation::new("mrtr-scripted-client", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.elicit(&request, key_of(&context))
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.sample(&request, key_of(&context))
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.list_roots_for(key_of(&context))
    }
}

/// Every `"text"` string in a sampling message, whatever its content shape (one block or many).
fn collect_texts(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get("text") {
                out.push(text.clone());
            }
            for (key, nested) in map {
                if key != "text" {
                    collect_texts(nested, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_texts(item, out)),
        _ => {}
    }
}
