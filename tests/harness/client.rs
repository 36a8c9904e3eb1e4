//! A scripted MCP client: answers elicitation, sampling and roots requests from a script chosen
//! by the request's own text, and records every request it received, in order.
//!
//! The same handler serves both eras. On a legacy session rmcp calls it for each real
//! server-initiated request; on 2026-07-28 rmcp's `call_tool` driver calls it once per
//! `inputRequests` entry, with the entry's key as the request id. So "what the client was asked"
//! reads the same whichever era ran, and a test can compare the two.
#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of the protocol

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientInfo, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation,
    ListRootsResult, NumberOrString, Root, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Value, json};

/// Which client capabilities the scripted client declares (at `initialize` on a legacy
/// session, in every request's `_meta` on 2026-07-28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    pub elicitation_form: bool,
    pub elicitation_url: bool,
    pub sampling: bool,
    pub roots: bool,
}

impl Caps {
    pub const NONE: Caps = Caps {
        elicitation_form: false,
        elicitation_url: false,
        sampling: false,
        roots: false,
    };
    pub const ALL: Caps = Caps {
        elicitation_form: true,
        elicitation_url: true,
        sampling: true,
        roots: true,
    };
    pub const FORM_ONLY: Caps = Caps {
        elicitation_form: true,
        ..Caps::NONE
    };

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
            .expect("rmcp's ClientCapabilities accepts every capability the harness declares")
    }
}

/// What the client does with one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Elicitation: accept with this `content` (which may deliberately not fit the schema).
    Accept(Value),
    /// Elicitation: accept with no `content` at all.
    AcceptEmpty,
    Decline,
    Cancel,
    /// Sampling: an assistant message with this text.
    Text(String),
    /// Roots: these URIs.
    Roots(Vec<String>),
    /// Any method: fail the request with a JSON-RPC error carrying this message.
    Fail(String),
}

pub fn accept(content: Value) -> Reply {
    Reply::Accept(content)
}

pub fn text(text: impl Into<String>) -> Reply {
    Reply::Text(text.into())
}

pub fn root_uris<I: IntoIterator<Item = S>, S: Into<String>>(uris: I) -> Reply {
    Reply::Roots(uris.into_iter().map(Into::into).collect())
}

/// Which requests a rule answers.
#[derive(Clone, Debug)]
enum Matcher {
    /// A form or URL elicitation whose message contains the text.
    Elicit(String),
    /// A sampling request one of whose messages (or the system prompt) contains the text.
    Sample(String),
    Roots,
}

impl Matcher {
    fn matches(&self, request: &Received) -> bool {
        match self {
            Matcher::Elicit(needle) => {
                request.method == ELICIT && request.text.contains(needle.as_str())
            }
            Matcher::Sample(needle) => {
                request.method == SAMPLE && request.text.contains(needle.as_str())
            }
            Matcher::Roots => request.method == ROOTS,
        }
    }
}

/// A rule: every matching request takes the next reply; the last reply repeats.
#[derive(Clone, Debug)]
struct Rule {
    matcher: Matcher,
    replies: VecDeque<Reply>,
}

impl Rule {
    fn next_reply(&mut self) -> Reply {
        if self.replies.len() > 1 {
            self.replies.pop_front().expect("checked non-empty")
        } else {
            self.replies
                .front()
                .cloned()
                .expect("a rule always holds at least one reply")
        }
    }
}

pub const ELICIT: &str = "elicitation/create";
pub const SAMPLE: &str = "sampling/createMessage";
pub const ROOTS: &str = "roots/list";

/// One request the client received.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: &'static str,
    /// The `inputRequests` key on 2026-07-28 (rmcp passes it as the request id); `None` for a
    /// real server-initiated request on a legacy session.
    pub key: Option<String>,
    /// The elicitation message, or every sampling message text and the system prompt joined by
    /// newlines; empty for roots.
    pub text: String,
    /// The request's params as the client saw them.
    pub params: Value,
}

struct Script {
    caps: Caps,
    rules: Mutex<Vec<Rule>>,
    received: Mutex<Vec<Received>>,
}

/// The scripted client. Cheap to clone: clones share the script and the record.
#[derive(Clone)]
pub struct ScriptedClient {
    script: Arc<Script>,
}

impl ScriptedClient {
    pub fn new(caps: Caps) -> Self {
        ScriptedClient {
            script: Arc::new(Script {
                caps,
                rules: Mutex::new(Vec::new()),
                received: Mutex::new(Vec::new()),
            }),
        }
    }

    fn rule(self, matcher: Matcher, replies: impl IntoIterator<Item = Reply>) -> Self {
        let replies: VecDeque<Reply> = replies.into_iter().collect();
        assert!(
            !replies.is_empty(),
            "a scripted rule needs at least one reply"
        );
        lock(&self.script.rules).push(Rule { matcher, replies });
        self
    }

    /// Answers elicitations whose message contains `needle`, in turn with `replies`.
    pub fn on_elicit(self, needle: &str, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.rule(Matcher::Elicit(needle.to_owned()), replies)
    }

    /// Answers sampling requests whose prompt contains `needle`, in turn with `replies`.
    pub fn on_sample(self, needle: &str, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.rule(Matcher::Sample(needle.to_owned()), replies)
    }

    /// Answers `roots/list`, in turn with `replies`.
    pub fn on_roots(self, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.rule(Matcher::Roots, replies)
    }

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

    /// How many received requests contain `needle` in their text.
    pub fn asked(&self, needle: &str) -> usize {
        self.received()
            .iter()
            .filter(|r| r.text.contains(needle))
            .count()
    }

    pub fn forget_received(&self) {
        lock(&self.script.received).clear();
    }

    /// Records the request and picks the first matching rule's next reply. A request nobody
    /// scripted fails loudly instead of being silently declined.
    fn answer(&self, request: Received) -> Result<Reply, ErrorData> {
        let reply = lock(&self.script.rules)
            .iter_mut()
            .find(|rule| rule.matcher.matches(&request))
            .map(Rule::next_reply);
        let description = format!("{} {:?}", request.method, request.text);
        lock(&self.script.received).push(request);
        reply.ok_or_else(|| {
            ErrorData::internal_error(
                format!("the scripted client has no answer for {description}"),
                None,
            )
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

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
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let text = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let reply = self.answer(Received {
            method: ELICIT,
            key: key_of(&context),
            text,
            params,
        })?;
        match reply {
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

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let mut texts: Vec<String> = request.system_prompt.iter().cloned().collect();
        for message in &request.messages {
            let message = serde_json::to_value(message).unwrap_or(Value::Null);
            collect_texts(&message, &mut texts);
        }
        let reply = self.answer(Received {
            method: SAMPLE,
            key: key_of(&context),
            text: texts.join("\n"),
            params,
        })?;
        match reply {
            Reply::Text(text) => Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text(text),
                "scripted-model".into(),
            )
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)),
            Reply::Fail(message) => Err(ErrorData::internal_error(message, None)),
            other => Err(unexpected(SAMPLE, &other)),
        }
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let reply = self.answer(Received {
            method: ROOTS,
            key: key_of(&context),
            text: String::new(),
            params: json!({}),
        })?;
        match reply {
            Reply::Roots(uris) => Ok(ListRootsResult::new(
                uris.into_iter().map(Root::new).collect(),
            )),
            Reply::Fail(message) => Err(ErrorData::internal_error(message, None)),
            other => Err(unexpected(ROOTS, &other)),
        }
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
