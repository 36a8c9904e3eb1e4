//! The server side of a behaviour test: an rmcp `ServerHandler` around a test's `ToolRouter`
//! that runs every call with the test's own mrtr runtime and keeps a transcript of the rounds,
//! plus the effect log a handler writes to.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ServerHandler;
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

/// Side effects of a handler, in order. A test counts them to prove that code before an answered
/// `ask!` ran exactly once, however many rounds the call took.
#[derive(Clone, Default, Debug)]
pub struct Effects(Arc<Mutex<Vec<String>>>);

impl Effects {
    pub fn record(&self, effect: impl Into<String>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(effect.into());
    }

    pub fn all(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many recorded effects equal `effect`.
    pub fn count(&self, effect: &str) -> usize {
        self.all().iter().filter(|e| e.as_str() == effect).count()
    }

    pub fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// How one `tools/call` request ended, as the server returned it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Complete {
        is_error: bool,
        content: Value,
    },
    InputRequired {
        keys: Vec<String>,
        request_state: Option<String>,
        input_requests: Value,
    },
    Error {
        code: i32,
        message: String,
    },
    Other,
}

/// One `tools/call` request that reached the server: one round.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub tool: String,
    pub arguments: Option<Value>,
    /// The `inputResponses` keys this request carried, sorted.
    pub response_keys: Vec<String>,
    pub request_state: Option<String>,
    pub outcome: Outcome,
}

impl Round {
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

/// Every round a server handled, in order.
#[derive(Clone, Default, Debug)]
pub struct Transcript(Arc<Mutex<Vec<Round>>>);

impl Transcript {
    fn push(&self, round: Round) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(round);
    }

    pub fn rounds(&self) -> Vec<Round> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many `tools/call` requests reached the tool router.
    pub fn len(&self) -> usize {
        self.rounds().len()
    }

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

    pub fn last(&self) -> Option<Round> {
        self.rounds().pop()
    }

    pub fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// A server made of a test's `#[tool_router]` impl: delegates `tools/call` to the router the way
/// `#[tool_handler]` would, after installing the test's runtime on the request and before
/// recording the round.
pub struct TestServer<S: Send + Sync + 'static> {
    service: S,
    router: ToolRouter<S>,
    /// `None` for hand-written tools that never reach mrtr.
    runtime: Option<Arc<mrtr::Runtime>>,
    transcript: Transcript,
}

impl<S: Send + Sync + 'static> TestServer<S> {
    pub fn new(service: S, router: ToolRouter<S>, runtime: Arc<mrtr::Runtime>) -> Self {
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
        let mut response_keys: Vec<String> = request
            .input_responses
            .iter()
            .flat_map(|responses| responses.keys().cloned())
            .collect();
        response_keys.sort();
        let tool = request.name.to_string();
        let arguments = request.arguments.clone().map(Value::Object);
        let request_state = request.request_state.clone();
        if let Some(runtime) = &self.runtime {
            context.extensions.insert(runtime.clone());
        }
        let response = self
            .router
            .call(ToolCallContext::new(&self.service, request, context))
            .await;
        self.transcript.push(Round {
            tool,
            arguments,
            response_keys,
            request_state,
            outcome: outcome_of(&response),
        });
        response
    }
}

fn outcome_of(response: &Result<CallToolResponse, ErrorData>) -> Outcome {
    match response {
        Ok(CallToolResponse::Complete(result)) => Outcome::Complete {
            is_error: result.is_error.unwrap_or(false),
            content: serde_json::to_value(&result.content).unwrap_or(Value::Null),
        },
        Ok(CallToolResponse::InputRequired(result)) => {
            let input_requests =
                serde_json::to_value(&result.input_requests).unwrap_or(Value::Null);
            let keys = result
                .input_requests
                .iter()
                .flat_map(|requests| requests.keys().cloned())
                .collect();
            Outcome::InputRequired {
                keys,
                request_state: result.request_state.clone(),
                input_requests,
            }
        }
        Ok(_) => Outcome::Other,
        Err(error) => Outcome::Error {
            code: error.code.0,
            message: error.message.to_string(),
        },
    }
}
