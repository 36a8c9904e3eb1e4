//! A `tools/call`, `prompts/get` or `resources/read` whose params do not parse is answered with
//! -32602 naming the field at fault — never rmcp's "method not found" — on stdio and on
//! Streamable HTTP, in both eras. One table: each field × each JSON type it must not have.
//!
//! Not in the table: a `_meta` that is not an object, and params that are not an object. rmcp's
//! message decoder refuses those before any server code sees the request (stdio: -32600 with a
//! null id; Streamable HTTP: 415 with a text body), so no `ServerHandler` wrapper can name them.

use std::net::SocketAddr;

use mrtr::StrictParams;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

mod support;

/// A well-formed `params` of `method`, before one field is broken.
fn valid(method: &str) -> Value {
    match method {
        "resources/read" => json!({ "uri": "file:///notes.txt" }),
        _ => json!({ "name": "deploy_service", "arguments": { "service": "checkout-api" } }),
    }
}

/// Every (method, field, wrong value) the table covers, with the words the message must have.
fn cases() -> Vec<(&'static str, &'static str, Value, &'static str)> {
    let wrong_for_object = [json!([]), json!(1), json!("x"), json!(true)];
    let wrong_for_string = [json!(1), json!({}), json!([]), json!(true)];
    let mut cases = Vec::new();
    for method in ["tools/call", "prompts/get", "resources/read"] {
        let mut fields = vec![
            ("inputResponses", &wrong_for_object[..], "must be an object"),
            ("requestState", &wrong_for_string[..], "must be a string"),
        ];
        if method == "resources/read" {
            fields.push(("uri", &wrong_for_string[..], "must be a string"));
        } else {
            fields.push(("arguments", &wrong_for_object[..], "must be an object"));
            fields.push(("name", &wrong_for_string[..], "must be a string"));
        }
        for (field, wrongs, words) in fields {
            for wrong in wrongs {
                cases.push((method, field, wrong.clone(), words));
            }
        }
        // A required field may not be null either; an optional null is read as absent.
        let required = if method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        cases.push((method, required, Value::Null, "must be a string, not null"));
    }
    cases
}

fn broken(method: &str, field: &str, wrong: &Value) -> Value {
    let mut params = valid(method);
    params[field] = wrong.clone();
    params
}

fn server() -> StrictParams<Deployer> {
    StrictParams::new(Deployer::new(Ops::new()))
}

fn check(label: &str, field: &str, words: &str, code: i64, message: &str) {
    assert_eq!(code, -32602, "{label}: {message}");
    assert!(
        message.contains(&format!("`{field}`")),
        "{label}: the message names the field: {message}"
    );
    assert!(message.contains(words), "{label}: {message}");
}

// ---- stdio, raw lines ----

/// A client that writes JSON-RPC lines itself, as a hostile one would: rmcp's own client would
/// not send what the table sends.
struct RawStdio {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: u64,
}

impl RawStdio {
    async fn serve(legacy: bool) -> Self {
        use rmcp::ServiceExt;
        use tokio::io::AsyncBufReadExt;
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server().serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_end);
        let mut raw = RawStdio {
            write,
            lines: tokio::io::BufReader::new(read).lines(),
            next_id: 1,
        };
        if legacy {
            raw.call(
                "initialize",
                json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "1" } }),
            )
            .await;
            raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
                .await;
        }
        raw
    }

    async fn send(&mut self, message: &Value) {
        use tokio::io::AsyncWriteExt;
        let mut line = serde_json::to_vec(message).expect("JSON");
        line.push(b'\n');
        self.write.write_all(&line).await.expect("the server reads");
    }

    /// Sends one request and returns the response carrying its id.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        loop {
            let line = self
                .lines
                .next_line()
                .await
                .expect("readable")
                .expect("a reply");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }
}

/// A 2026-07-28 request carries its own `_meta`.
fn with_meta(mut params: Value) -> Value {
    if params.get("_meta").is_none_or(Value::is_null) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    params
}

#[tokio::test]
async fn every_wrong_field_type_is_invalid_params_naming_the_field_on_stdio() {
    support::install_runtime("deploy-service");
    for legacy in [false, true] {
        let mut raw = RawStdio::serve(legacy).await;
        for (method, field, wrong, words) in cases() {
            let label = format!("stdio legacy={legacy} {method} {field}={wrong}");
            let mut params = broken(method, field, &wrong);
            if !legacy {
                params = with_meta(params);
            }
            let reply = raw.call(method, params).await;
            let code = reply["error"]["code"].as_i64().unwrap_or_default();
            let message = reply["error"]["message"].as_str().unwrap_or_default();
            check(&label, field, words, code, message);
            assert_eq!(reply["error"]["data"]["field"], field, "{label}: {reply}");
        }
    }
}

#[tokio::test]
async fn an_unknown_method_is_still_method_not_found() {
    support::install_runtime("deploy-service");
    let mut raw = RawStdio::serve(true).await;
    let reply = raw.call("tools/summon", json!({ "name": 1 })).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

// ---- Streamable HTTP, raw POSTs ----

async fn start_http() -> SocketAddr {
    let service = StreamableHttpService::new(
        || Ok(server()),
        mrtr_examples::session_manager(mrtr_examples::DEFAULT_SESSION_IDLE),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let (listener, addr) = mrtr_examples::bind_nodelay("127.0.0.1:0".parse().unwrap())
        .await
        .expect("a loopback port");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// The one JSON-RPC message of a response, whether it came as JSON or as an SSE stream.
async fn message_of(response: reqwest::Response) -> Value {
    let body = response.text().await.expect("a body");
    if let Ok(value) = serde_json::from_str(&body) {
        return value;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in {body:?}"))
}

struct Http {
    client: reqwest::Client,
    url: String,
}

impl Http {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .json(body)
    }

    /// A 2026-07-28 request: the standard headers and the request's own `_meta`.
    async fn modern(&self, method: &str, mut params: Value) -> (u16, Value) {
        params = with_meta(params);
        let mut request = self
            .post(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        let name = params
            .get("name")
            .or(params.get("uri"))
            .and_then(Value::as_str);
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        let response = request.send().await.expect("the server answers");
        (response.status().as_u16(), message_of(response).await)
    }

    /// Opens a legacy session with `initialize`; returns its id.
    async fn legacy_session(&self) -> String {
        let response = self
            .post(
                &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "1" } } }),
            )
            .send()
            .await
            .expect("initialize is answered");
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a legacy session id")
            .to_owned();
        let _ = message_of(response).await;
        self.post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .await
            .expect("initialized is accepted");
        session
    }

    async fn legacy(&self, session: &str, method: &str, params: Value) -> (u16, Value) {
        let response = self
            .post(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .await
            .expect("the server answers");
        (response.status().as_u16(), message_of(response).await)
    }
}

#[tokio::test]
async fn every_wrong_field_type_is_invalid_params_naming_the_field_over_streamable_http() {
    support::install_runtime("deploy-service");
    let addr = start_http().await;
    let http = Http {
        client: reqwest::Client::new(),
        url: format!("http://{addr}/mcp"),
    };
    let session = http.legacy_session().await;
    for (method, field, wrong, words) in cases() {
        let params = broken(method, field, &wrong);
        for (era, (status, reply)) in [
            ("2026-07-28", http.modern(method, params.clone()).await),
            ("legacy", http.legacy(&session, method, params).await),
        ] {
            let label = format!("HTTP {era} {method} {field}={wrong}");
            assert_eq!(
                reply["id"], 7,
                "{label}: the error carries the request id: {reply}"
            );
            let code = reply["error"]["code"].as_i64().unwrap_or_default();
            let message = reply["error"]["message"].as_str().unwrap_or_default();
            check(&label, field, words, code, message);
            assert_eq!(
                status, 200,
                "{label}: a JSON-RPC error is HTTP 200: {reply}"
            );
        }
    }
}
