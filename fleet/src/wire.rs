//! One HTTP round through the load balancer: the JSON-RPC response, which instance answered,
//! and whether the failure is one a client retries (the connection or the proxy failed).

use std::time::{Duration, Instant};

use serde_json::Value;

/// How one POST ended, short of a JSON-RPC response.
#[derive(Debug)]
pub enum RoundError {
    /// The connection broke or the proxy found no live upstream (502/503/504): a client
    /// retries the same round.
    Transport(String),
    /// No complete answer within [`ATTEMPT_TIMEOUT`]: a client gives up on the attempt and
    /// sends the round again. `instance` is the one whose headers arrived, if any did.
    Unanswered { instance: Option<String> },
    /// The server answered with a JSON-RPC error.
    Rpc { code: i64, message: String },
    /// Anything else: a status or a body no MCP server should send.
    Protocol(String),
}

impl std::fmt::Display for RoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoundError::Transport(reason) => write!(f, "connection: {reason}"),
            RoundError::Unanswered { instance: None } => {
                write!(f, "no response headers within {ATTEMPT_TIMEOUT:?}")
            }
            RoundError::Unanswered {
                instance: Some(instance),
            } => write!(
                f,
                "headers from {instance}, but no complete body within {ATTEMPT_TIMEOUT:?}"
            ),
            RoundError::Rpc { code, message } => write!(f, "JSON-RPC error {code}: {message}"),
            RoundError::Protocol(reason) => write!(f, "protocol: {reason}"),
        }
    }
}

/// How long a client waits for one attempt before sending the round again: well under the
/// fleet's continuation TTL (`scripts/fleet.sh`, at least 6 s), so the retry still carries a
/// live `requestState`, and far above a round's p99 on a debug build (about 0.2 s).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(3);

pub struct Answered {
    /// From the `x-mrtr-instance` header each instance sets.
    pub instance: String,
    pub result: Value,
    pub elapsed: Duration,
}

pub async fn post(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
) -> Result<Answered, RoundError> {
    let started = Instant::now();
    let sending = client
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header(
            "Mcp-Name",
            body.pointer("/params/name")
                .and_then(Value::as_str)
                .unwrap_or(""),
        )
        .body(body.to_string())
        .send();
    let response = tokio::time::timeout(ATTEMPT_TIMEOUT, sending)
        .await
        .map_err(|_| RoundError::Unanswered { instance: None })?
        .map_err(|e| RoundError::Transport(with_sources(&e)))?;
    let status = response.status().as_u16();
    let instance = response
        .headers()
        .get("x-mrtr-instance")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("?")
        .to_owned();
    let remaining = ATTEMPT_TIMEOUT.saturating_sub(started.elapsed());
    let text = tokio::time::timeout(remaining, response.text())
        .await
        .map_err(|_| RoundError::Unanswered {
            instance: Some(instance.clone()),
        })?
        .map_err(|e| RoundError::Transport(with_sources(&e)))?;
    let elapsed = started.elapsed();
    if matches!(status, 502..=504) {
        return Err(RoundError::Transport(format!(
            "HTTP {status} from the proxy"
        )));
    }
    if status != 200 {
        return Err(RoundError::Protocol(format!("HTTP {status}: {text}")));
    }
    let message = json_rpc_message(&text)
        .ok_or_else(|| RoundError::Protocol(format!("no JSON-RPC response in {text:?}")))?;
    if let Some(error) = message.get("error") {
        return Err(RoundError::Rpc {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        });
    }
    let result = message
        .get("result")
        .cloned()
        .ok_or_else(|| RoundError::Protocol(format!("neither result nor error: {message}")))?;
    Ok(Answered {
        instance,
        result,
        elapsed,
    })
}

/// The error and what caused it (reqwest's own message names only the request: "error sending
/// request for url").
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The response of a plain JSON body, or the first message with an id in an SSE stream.
fn json_rpc_message(body: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        return Some(value);
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id").is_some())
}
