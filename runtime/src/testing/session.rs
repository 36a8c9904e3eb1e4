//! A client and a server joined by an in-memory duplex, in either protocol era.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult, JsonObject,
    ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, RoleClient, RoleServer, RunningService, Service, ServiceError,
};
use rmcp::{ClientServiceExt, ServiceExt};
use serde_json::Value;
use tokio::task::JoinHandle;

use super::client::ScriptedClient;

/// The two ways a client can talk to the same server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `server/discover` and per-request `_meta`: asks come back as `input_required` rounds.
    Modern,
    /// `initialize` (negotiates 2025-11-25): asks are real server-initiated requests.
    Legacy,
}

/// Both eras, 2026-07-28 first.
pub const ERAS: [Era; 2] = [Era::Modern, Era::Legacy];

/// A connected pair. Dropping it cancels the client; the server task ends with the transport.
pub struct Session {
    /// The era this session speaks.
    pub era: Era,
    /// The scripted client (clones share its record).
    pub client: ScriptedClient,
    running: RunningService<RoleClient, ScriptedClient>,
    server: JoinHandle<()>,
}

/// Serves `server` on one end of a duplex and connects `client` to the other in `era`: rmcp's
/// real server and client, in-process. `server` is any rmcp `ServerHandler`, or a [`Recorded`]
/// one.
///
/// [`Recorded`]: super::Recorded
pub async fn connect<H: Service<RoleServer>>(
    server: H,
    client: ScriptedClient,
    era: Era,
) -> Session {
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        // A failed start shows up on the client side as a failed connect; nothing to add here.
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let running = match era {
        Era::Modern => client
            .clone()
            .serve_with_lifecycle(
                client_end,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("a 2026-07-28 client connects over server/discover"),
        Era::Legacy => client
            .clone()
            .serve(client_end)
            .await
            .expect("a legacy client connects with initialize"),
    };
    Session {
        era,
        client,
        running,
        server,
    }
}

/// `tools/call` parameters for `tool` with a JSON object of arguments.
pub fn params(tool: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    params
}

impl Session {
    /// The whole call, as an application would make it: on 2026-07-28 rmcp's driver fulfils
    /// every `input_required` round through the scripted client.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
        self.running.call_tool(params(tool, arguments)).await
    }

    /// One raw `tools/call` request; nothing is fulfilled.
    pub async fn call_once(
        &self,
        params: CallToolRequestParams,
    ) -> Result<CallToolResponse, ServiceError> {
        self.running.call_tool_once(params).await
    }

    /// One raw round: the same request with the given `inputResponses` and `requestState`.
    pub async fn round(
        &self,
        tool: &str,
        arguments: Value,
        input_responses: Option<Value>,
        request_state: Option<String>,
    ) -> Result<CallToolResponse, ServiceError> {
        let mut params = params(tool, arguments);
        params.input_responses = responses(input_responses);
        params.request_state = request_state;
        self.call_once(params).await
    }

    /// A whole `resources/read`; on 2026-07-28 rmcp's driver fulfils the rounds.
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<rmcp::model::ReadResourceResult, ServiceError> {
        self.running
            .read_resource(rmcp::model::ReadResourceRequestParams::new(uri))
            .await
    }

    /// One raw `resources/read` round with the given `inputResponses` and `requestState`.
    pub async fn read_resource_once(
        &self,
        uri: &str,
        input_responses: Option<Value>,
        request_state: Option<String>,
    ) -> Result<rmcp::model::ReadResourceResponse, ServiceError> {
        let mut params = rmcp::model::ReadResourceRequestParams::new(uri);
        params.input_responses = responses(input_responses);
        params.request_state = request_state;
        self.running.read_resource_once(params).await
    }

    /// A whole `prompts/get`; on 2026-07-28 rmcp's driver fulfils the rounds.
    pub async fn get_prompt(
        &self,
        name: &str,
    ) -> Result<rmcp::model::GetPromptResult, ServiceError> {
        self.running
            .get_prompt(rmcp::model::GetPromptRequestParams::new(name))
            .await
    }

    /// One raw `prompts/get` round with the given arguments, `inputResponses` and
    /// `requestState`.
    pub async fn get_prompt_once(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Option<Value>,
        request_state: Option<String>,
    ) -> Result<rmcp::model::GetPromptResponse, ServiceError> {
        let mut params = rmcp::model::GetPromptRequestParams::new(name);
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        params.input_responses = responses(input_responses);
        params.request_state = request_state;
        self.running.get_prompt_once(params).await
    }

    /// The client's peer, for requests the typed helpers cannot spell (malformed params).
    pub fn peer(&self) -> &rmcp::Peer<RoleClient> {
        self.running.peer()
    }

    /// Closes the client and waits for the server to stop.
    pub async fn close(self) {
        let _ = self.running.cancel().await;
        let _ = self.server.await;
    }
}

/// A test's `inputResponses` object as rmcp's map.
fn responses(input_responses: Option<Value>) -> Option<rmcp::model::InputResponses> {
    input_responses.map(|responses| match responses {
        Value::Object(map) => map.into_iter().collect(),
        other => panic!("inputResponses in a test must be a JSON object, got {other}"),
    })
}

/// The text of every text content block of a result, joined by newlines.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .filter_map(|block| block.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `input_required` result of a raw round; panics with the actual response otherwise.
pub fn expect_input_required(
    response: Result<CallToolResponse, ServiceError>,
) -> InputRequiredResult {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => result,
        other => panic!("expected input_required, got {other:?}"),
    }
}

/// The complete result of a raw round; panics with the actual response otherwise.
pub fn expect_complete(response: Result<CallToolResponse, ServiceError>) -> CallToolResult {
    match response {
        Ok(CallToolResponse::Complete(result)) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

/// The JSON-RPC error of a failed request: `(code, message)`.
pub fn expect_rpc_error<T: std::fmt::Debug>(response: Result<T, ServiceError>) -> (i32, String) {
    match response {
        Err(ServiceError::McpError(error)) => (error.code.0, error.message.to_string()),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// The JSON-RPC error of a failed request, with its `data`.
pub fn expect_rpc_error_data<T: std::fmt::Debug>(
    response: Result<T, ServiceError>,
) -> (i32, Option<Value>) {
    match response {
        Err(ServiceError::McpError(error)) => (error.code.0, error.data),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// The sorted keys of an `input_required` result's `inputRequests`.
pub fn keys_of(result: &InputRequiredResult) -> Vec<String> {
    result
        .input_requests
        .iter()
        .flat_map(|requests| requests.keys().cloned())
        .collect()
}

/// An `InputRequiredResult`'s `inputRequests` as plain JSON.
pub fn requests_of(result: &InputRequiredResult) -> Value {
    serde_json::to_value(&result.input_requests).unwrap_or(Value::Null)
}

/// Builds a JSON object from the arguments of a test call; `JsonObject` for hand-built params.
pub fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}
