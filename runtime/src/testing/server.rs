//! The server side of a test: [`Recorded`], any rmcp server run with the test's own mrtr runtime
//! (and principal) that keeps a [`Transcript`] of the rounds; [`TestServer`], a server made of a
//! bare `#[tool_router]` impl; and the [`Effects`] log a handler writes to.

use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::ServerHandler;
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, ErrorData,
    InputRequiredResult, InputResponses, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, ServerResult,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, Service, ServiceRole};
use serde_json::Value;

use super::client::lock;
use crate::{Principal, Runtime};

/// Side effects of a handler, in order: the effect log a test supplies. A test counts them to
/// prove that code before an answered `ask!` ran exactly once, however many rounds the call took,
/// and compares them across eras.
///
/// A handler can [`record`](Self::record) into it directly, or the test can
/// [`watch`](Self::watch) a log its server already keeps (an audit trail, a fake back end):
/// [`all`](Self::all) reads both.
#[derive(Clone, Default)]
pub struct Effects {
    log: Arc<Mutex<Vec<String>>>,
    watched: Arc<Mutex<Vec<EffectSource>>>,
}

type EffectSource = Arc<dyn Fn() -> Vec<String> + Send + Sync>;

impl fmt::Debug for Effects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.all()).finish()
    }
}

impl Effects {
    /// Appends one effect.
    pub fn record(&self, effect: impl Into<String>) {
        lock(&self.log).push(effect.into());
    }

    /// Adds a log the server keeps itself; its lines follow the recorded ones in [`all`](Self::all).
    pub fn watch(&self, source: impl Fn() -> Vec<String> + Send + Sync + 'static) {
        lock(&self.watched).push(Arc::new(source));
    }

    /// Every effect: the recorded ones, then each watched log's, in order.
    pub fn all(&self) -> Vec<String> {
        let mut all = lock(&self.log).clone();
        let watched: Vec<EffectSource> = lock(&self.watched).clone();
        for source in watched {
            all.extend(source());
        }
        all
    }

    /// How many effects equal `effect`.
    pub fn count(&self, effect: &str) -> usize {
        self.all().iter().filter(|e| e.as_str() == effect).count()
    }

    /// Forgets the recorded effects (watched logs are the server's own).
    pub fn clear(&self) {
        lock(&self.log).clear();
    }
}

/// How one request ended, as the server returned it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A final result: for a tool its `content` and `isError`; for a prompt or resource the whole
    /// result as JSON.
    Complete {
        /// The tool's `isError`.
        is_error: bool,
        /// The tool's `content`, or the whole prompt or resource result.
        content: Value,
    },
    /// `input_required`.
    InputRequired {
        /// The `inputRequests` keys, sorted.
        keys: Vec<String>,
        /// The sealed continuation.
        request_state: Option<String>,
        /// The `inputRequests` map as JSON.
        input_requests: Value,
    },
    /// A JSON-RPC error.
    Error {
        /// The error code (-32602 for a refused `requestState`, -32021 for a missing capability).
        code: i32,
        /// The error message.
        message: String,
    },
    /// Any other result (a task).
    Other,
}

/// One `tools/call`, `prompts/get` or `resources/read` request that reached the server: one round.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// The tool or prompt name, or the resource URI.
    pub tool: String,
    /// The request's arguments (`None` for resources).
    pub arguments: Option<Value>,
    /// The `inputResponses` keys this request carried, sorted.
    pub response_keys: Vec<String>,
    /// The `requestState` this request carried.
    pub request_state: Option<String>,
    /// How the server answered.
    pub outcome: Outcome,
}

impl Round {
    /// Whether the server answered `input_required`.
    pub fn is_input_required(&self) -> bool {
        matches!(self.outcome, Outcome::InputRequired { .. })
    }

    /// The `inputRequests` keys this round answered with (empty unless `input_required`).
    pub fn asked_keys(&self) -> Vec<String> {
        match &self.outcome {
            Outcome::InputRequired { keys, .. } => keys.clone(),
            _ => Vec::new(),
        }
    }
}

/// Every round a server handled, in order. Clones share the record.
#[derive(Clone, Default, Debug)]
pub struct Transcript(Arc<Mutex<Vec<Round>>>);

impl Transcript {
    fn push(&self, round: Round) {
        lock(&self.0).push(round);
    }

    /// Every round so far.
    pub fn rounds(&self) -> Vec<Round> {
        lock(&self.0).clone()
    }

    /// How many requests reached the server.
    pub fn len(&self) -> usize {
        lock(&self.0).len()
    }

    /// Whether no request reached the server.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many rounds ended in `input_required`.
    pub fn input_required(&self) -> usize {
        self.rounds()
            .iter()
            .filter(|r| r.is_input_required())
            .count()
    }

    /// The `inputRequests` keys of each `input_required` round, in order.
    pub fn asked_keys(&self) -> Vec<Vec<String>> {
        self.rounds()
            .iter()
            .filter(|r| r.is_input_required())
            .map(Round::asked_keys)
            .collect()
    }

    /// The last round.
    pub fn last(&self) -> Option<Round> {
        self.rounds().pop()
    }

    /// Forgets every round.
    pub fn clear(&self) {
        lock(&self.0).clear();
    }
}

/// A server made of a test's `#[tool_router]` impl: delegates `tools/call` to the router the way
/// `#[tool_handler]` would, after installing the test's runtime on the request and before
/// recording the round. For a whole server of your own, use [`Recorded`] (what
/// [`run`](super::run) and the suites wrap every server in).
pub struct TestServer<S: Send + Sync + 'static> {
    service: S,
    router: ToolRouter<S>,
    /// `None` for hand-written tools that never reach mrtr.
    runtime: Option<Arc<Runtime>>,
    transcript: Transcript,
}

impl<S: Send + Sync + 'static> TestServer<S> {
    /// `service`'s tools, run with `runtime`.
    pub fn new(service: S, router: ToolRouter<S>, runtime: Arc<Runtime>) -> Self {
        TestServer {
            service,
            router,
            runtime: Some(runtime),
            transcript: Transcript::default(),
        }
    }

    /// A server for hand-written rmcp tools, with no mrtr runtime on its requests.
    pub fn plain(service: S, router: ToolRouter<S>) -> Self {
        TestServer {
            service,
            router,
            runtime: None,
            transcript: Transcript::default(),
        }
    }

    /// The transcript; keep a clone before the server moves into a session.
    pub fn transcript(&self) -> Transcript {
        self.transcript.clone()
    }
}

impl<S: Send + Sync + 'static> ServerHandler for TestServer<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = RoundRequest::tool(&request);
        if let Some(runtime) = &self.runtime {
            context.extensions.insert(runtime.clone());
        }
        let response = self
            .router
            .call(ToolCallContext::new(&self.service, request, context))
            .await;
        self.transcript.push(round.ended(tool_outcome(&response)));
        response
    }
}

/// What a round request said, kept until the server answers it.
struct RoundRequest {
    tool: String,
    arguments: Option<Value>,
    response_keys: Vec<String>,
    request_state: Option<String>,
}

impl RoundRequest {
    fn new(
        tool: String,
        arguments: Option<Value>,
        responses: Option<&InputResponses>,
        request_state: Option<&String>,
    ) -> Self {
        // `InputResponses` is a BTreeMap: its keys come sorted.
        let response_keys = responses
            .iter()
            .flat_map(|responses| responses.keys().cloned())
            .collect();
        RoundRequest {
            tool,
            arguments,
            response_keys,
            request_state: request_state.cloned(),
        }
    }

    fn tool(request: &CallToolRequestParams) -> Self {
        RoundRequest::new(
            request.name.to_string(),
            request.arguments.clone().map(Value::Object),
            request.input_responses.as_ref(),
            request.request_state.as_ref(),
        )
    }

    /// The round request in `request`, if it is one (`tools/call`, `prompts/get`,
    /// `resources/read`).
    fn of(request: &ClientRequest) -> Option<Self> {
        match request {
            ClientRequest::CallToolRequest(call) => Some(RoundRequest::tool(&call.params)),
            ClientRequest::GetPromptRequest(get) => Some(RoundRequest::new(
                get.params.name.clone(),
                get.params.arguments.clone().map(Value::Object),
                get.params.input_responses.as_ref(),
                get.params.request_state.as_ref(),
            )),
            ClientRequest::ReadResourceRequest(read) => Some(RoundRequest::new(
                read.params.uri.clone(),
                None,
                read.params.input_responses.as_ref(),
                read.params.request_state.as_ref(),
            )),
            _ => None,
        }
    }

    fn ended(self, outcome: Outcome) -> Round {
        Round {
            tool: self.tool,
            arguments: self.arguments,
            response_keys: self.response_keys,
            request_state: self.request_state,
            outcome,
        }
    }
}

fn complete(result: &CallToolResult) -> Outcome {
    Outcome::Complete {
        is_error: result.is_error.unwrap_or(false),
        content: serde_json::to_value(&result.content).unwrap_or(Value::Null),
    }
}

fn tool_outcome(response: &Result<CallToolResponse, ErrorData>) -> Outcome {
    match response {
        Ok(CallToolResponse::Complete(result)) => complete(result),
        Ok(CallToolResponse::InputRequired(result)) => input_required(result),
        Ok(_) => Outcome::Other,
        Err(error) => error_outcome(error),
    }
}

fn result_outcome(response: &Result<ServerResult, ErrorData>) -> Outcome {
    match response {
        Ok(ServerResult::CallToolResult(result)) => complete(result),
        Ok(ServerResult::InputRequiredResult(result)) => input_required(result),
        Ok(result @ (ServerResult::GetPromptResult(_) | ServerResult::ReadResourceResult(_))) => {
            Outcome::Complete {
                is_error: false,
                content: serde_json::to_value(result).unwrap_or(Value::Null),
            }
        }
        Ok(_) => Outcome::Other,
        Err(error) => error_outcome(error),
    }
}

fn input_required(result: &InputRequiredResult) -> Outcome {
    Outcome::InputRequired {
        keys: result
            .input_requests
            .iter()
            .flat_map(|requests| requests.keys().cloned())
            .collect(),
        request_state: result.request_state.clone(),
        input_requests: serde_json::to_value(&result.input_requests).unwrap_or(Value::Null),
    }
}

fn error_outcome(error: &ErrorData) -> Outcome {
    Outcome::Error {
        code: error.code.0,
        message: error.message.to_string(),
    }
}

/// Any rmcp server, run with the test's mrtr runtime (and, if set, an authenticated principal)
/// on every request, keeping a [`Transcript`] of its `tools/call`, `prompts/get` and
/// `resources/read` rounds.
///
/// The runtime rides in the request's extensions, where mrtr looks first, so a server that
/// installs its own runtime (or reads `MRTR_STATE_KEYS`) still seals with the test's keys: two
/// instances built by one factory open each other's tokens, as behind a load balancer.
pub struct Recorded<H> {
    inner: H,
    runtime: Option<Arc<Runtime>>,
    principal: Option<String>,
    transcript: Transcript,
}

impl<H> Recorded<H> {
    /// `server`, run with `runtime` (`None`: whatever runtime the server would use anyway).
    pub fn new(server: H, runtime: Option<Arc<Runtime>>) -> Self {
        Recorded {
            inner: server,
            runtime,
            principal: None,
            transcript: Transcript::default(),
        }
    }

    /// Every request is made by `subject`, as `mrtr::Principal` set by an auth middleware.
    pub fn as_principal(mut self, subject: impl Into<String>) -> Self {
        self.principal = Some(subject.into());
        self
    }

    /// The transcript; keep a clone before the server moves into a session.
    pub fn transcript(&self) -> Transcript {
        self.transcript.clone()
    }
}

impl<H: Service<RoleServer>> Service<RoleServer> for Recorded<H> {
    async fn handle_request(
        &self,
        request: <RoleServer as ServiceRole>::PeerReq,
        mut context: RequestContext<RoleServer>,
    ) -> Result<<RoleServer as ServiceRole>::Resp, ErrorData> {
        if let Some(runtime) = &self.runtime {
            context.extensions.insert(runtime.clone());
        }
        if let Some(subject) = &self.principal {
            context.extensions.insert(Principal(subject.clone()));
        }
        let round = RoundRequest::of(&request);
        let response = self.inner.handle_request(request, context).await;
        if let Some(round) = round {
            self.transcript.push(round.ended(result_outcome(&response)));
        }
        response
    }

    async fn handle_notification(
        &self,
        notification: <RoleServer as ServiceRole>::PeerNot,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> <RoleServer as ServiceRole>::Info {
        self.inner.get_info()
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }
}
