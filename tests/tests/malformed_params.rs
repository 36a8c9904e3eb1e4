//! A `tools/call`, `prompts/get` or `resources/read` whose params do not parse is answered with
//! -32602 naming the field at fault — never rmcp's "method not found", never an error without
//! the request's id — on stdio and on Streamable HTTP, in both eras, served as the examples
//! serve (`mrtr_examples::serve_stream` and `mcp_router`: the pre-scan in front of rmcp,
//! `StrictParams` behind it). One table: each field × each JSON type it must not have, and
//! params that are not an object. A `_meta` or params of the wrong type fail rmcp's message
//! decoder, so only the pre-scan can answer them with the id; the other fields it answers too,
//! and `StrictParams` is the second line for servers run without it.

use mrtr::StrictParams;
use mrtr::prescan::Prescan;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use serde_json::{Value, json};

mod support;

/// A well-formed `params` of `method`, before one field is broken.
fn valid(method: &str) -> Value {
    match method {
        "resources/read" => json!({ "uri": "file:///notes.txt" }),
        _ => json!({ "name": "deploy_service", "arguments": { "service": "checkout-api" } }),
    }
}

/// One row of the table: `params` of `method` with one thing wrong, and what the error says.
struct Case {
    method: &'static str,
    params: Value,
    /// The field the message and `data.field` name; `None` when the params themselves are wrong.
    field: Option<&'static str>,
    words: &'static str,
}

impl Case {
    fn label(&self) -> String {
        format!("{} {}", self.method, self.params)
    }
}

/// Every (method, field, wrong value) the table covers, and params of every non-object type.
fn cases() -> Vec<Case> {
    let wrong_for_object = [json!([]), json!(1), json!("x"), json!(true)];
    let wrong_for_string = [json!(1), json!({}), json!([]), json!(true)];
    let mut cases = Vec::new();
    for method in ["tools/call", "prompts/get", "resources/read"] {
        let mut fields = vec![
            ("inputResponses", &wrong_for_object[..], "must be an object"),
            ("requestState", &wrong_for_string[..], "must be a string"),
            ("_meta", &wrong_for_object[..], "must be an object"),
        ];
        if method == "resources/read" {
            fields.push(("uri", &wrong_for_string[..], "must be a string"));
        } else {
            fields.push(("arguments", &wrong_for_object[..], "must be an object"));
            fields.push(("name", &wrong_for_string[..], "must be a string"));
        }
        for (field, wrongs, words) in fields {
            for wrong in wrongs {
                cases.push(Case {
                    method,
                    params: broken(method, field, wrong),
                    field: Some(field),
                    words,
                });
            }
        }
        // A required field may not be null either; an optional null is read as absent.
        let required = if method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        cases.push(Case {
            method,
            params: broken(method, required, &Value::Null),
            field: Some(required),
            words: "must be a string, not null",
        });
        for (params, words) in [
            (json!([]), "params must be an object, not an array"),
            (json!(7), "params must be an object, not a number"),
            (json!("x"), "params must be an object, not a string"),
            (json!(false), "params must be an object, not a boolean"),
            (Value::Null, "params must be an object, not null"),
        ] {
            cases.push(Case {
                method,
                params,
                field: None,
                words,
            });
        }
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

/// The reply to `case` is -32602 under the request's id, naming what is wrong.
fn check(label: &str, case: &Case, id: Value, reply: &Value) {
    assert_eq!(
        reply["id"], id,
        "{label}: the error carries the request id: {reply}"
    );
    assert_eq!(reply["error"]["code"], -32602, "{label}: {reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(case.words), "{label}: {message}");
    match case.field {
        Some(field) => {
            assert!(
                message.contains(&format!("`{field}`")),
                "{label}: the message names the field: {message}"
            );
            assert_eq!(reply["error"]["data"]["field"], field, "{label}: {reply}");
        }
        None => assert!(
            reply["error"]["data"].get("field").is_none(),
            "{label}: {reply}"
        ),
    }
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
    /// The server as the examples serve stdio: `serve_stream` behind the pre-scan.
    async fn serve(legacy: bool) -> Self {
        use tokio::io::AsyncBufReadExt;
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            let (read, write) = tokio::io::split(server_end);
            let _ =
                mrtr_examples::serve_stream(server(), Some(Prescan::default()), read, write).await;
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
        self.reply_to(id).await
    }

    async fn reply_to(&mut self, id: u64) -> Value {
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

/// A 2026-07-28 request carries its own `_meta` (params that are not an object cannot).
fn with_meta(mut params: Value) -> Value {
    if params.is_object() && params.get("_meta").is_none_or(Value::is_null) {
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
        for case in cases() {
            let label = format!("stdio legacy={legacy} {}", case.label());
            let params = if legacy {
                case.params.clone()
            } else {
                with_meta(case.params.clone())
            };
            let id = raw.next_id;
            let reply = raw.call(case.method, params).await;
            check(&label, &case, json!(id), &reply);
        }
    }
}

/// What the examples' stdio would be without the pre-scan: plain rmcp behind `StrictParams`.
#[tokio::test]
async fn without_the_pre_scan_rmcp_answers_a_wrong_meta_without_the_request_id() {
    use rmcp::ServiceExt;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    support::install_runtime("deploy-service");
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_end);
    let line = json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": with_meta(json!({ "name": "deploy_service", "_meta": 1 })) });
    write
        .write_all(format!("{line}\n").as_bytes())
        .await
        .unwrap();
    let reply = tokio::io::BufReader::new(read)
        .lines()
        .next_line()
        .await
        .unwrap()
        .expect("a reply");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
}

fn input_responses(keys: usize) -> Value {
    (0..keys)
        .map(|i| (format!("k{i}"), json!({ "action": "cancel" })))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[tokio::test]
async fn input_responses_over_the_key_limit_are_refused_by_the_pre_scan_on_stdio() {
    support::install_runtime("deploy-service");
    let mut raw = RawStdio::serve(false).await;
    let mut params = with_meta(valid("tools/call"));
    params["inputResponses"] = input_responses(100_000);
    let reply = raw.call("tools/call", params).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("100000 keys in inputResponses; at most 64 are accepted"),
        "{message}"
    );
}

#[tokio::test]
async fn an_unknown_method_is_still_method_not_found() {
    support::install_runtime("deploy-service");
    let mut raw = RawStdio::serve(true).await;
    let reply = raw.call("tools/summon", json!({ "name": 1 })).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

// ---- Streamable HTTP, raw POSTs ----

/// The server as the examples serve HTTP (`mcp_router` behind the pre-scan), and a raw client.
async fn start_http() -> Http {
    let router = mrtr_examples::mcp_router(
        server,
        Some(Prescan::default()),
        mrtr_examples::session_manager(mrtr_examples::DEFAULT_SESSION_IDLE),
    );
    let addr = support::serve_http(router).await;
    Http {
        client: reqwest::Client::new(),
        url: format!("http://{addr}/mcp"),
    }
}

/// The one JSON-RPC message of a response, whether it came as JSON or as an SSE stream.
async fn message_of(response: reqwest::Response) -> Value {
    support::message_in(&response.text().await.expect("a body"))
}

struct Http {
    client: reqwest::Client,
    url: String,
}

impl Http {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        support::post_json(&self.client, &self.url, body)
    }

    /// A 2026-07-28 request: the standard headers and the request's own `_meta`.
    async fn modern(&self, method: &str, mut params: Value) -> (u16, Value) {
        params = with_meta(params);
        let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
        let response = support::post_modern(&self.client, &self.url, &body)
            .send()
            .await
            .expect("the server answers");
        (response.status().as_u16(), message_of(response).await)
    }

    /// Opens a legacy session with `initialize`; returns its id.
    async fn legacy_session(&self) -> String {
        support::open_legacy_session(&self.client, &self.url, json!({})).await
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
    let http = start_http().await;
    let session = http.legacy_session().await;
    for case in cases() {
        for (era, (status, reply)) in [
            (
                "2026-07-28",
                http.modern(case.method, case.params.clone()).await,
            ),
            (
                "legacy",
                http.legacy(&session, case.method, case.params.clone())
                    .await,
            ),
        ] {
            let label = format!("HTTP {era} {}", case.label());
            check(&label, &case, json!(7), &reply);
            assert_eq!(
                status, 200,
                "{label}: a JSON-RPC error is HTTP 200: {reply}"
            );
        }
    }
}

#[tokio::test]
async fn input_responses_over_the_key_limit_are_refused_by_the_pre_scan_over_streamable_http() {
    support::install_runtime("deploy-service");
    let http = start_http().await;
    let mut params = valid("tools/call");
    params["inputResponses"] = input_responses(50_000);
    let (status, reply) = http.modern("tools/call", params).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["id"], 7, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("50000 keys in inputResponses"),
        "{message}"
    );
}

/// Behind the pre-scan, a body whose brackets and bytes prove every `inputResponses` within the
/// depth and size limits skips the walk over them; these are not within the limits, so the walk
/// still refuses them, with the runtime's own messages. A response well within them passes.
#[tokio::test]
async fn input_responses_past_the_depth_or_size_limit_are_refused_behind_the_pre_scan() {
    support::install_runtime("deploy-service");
    let http = start_http().await;
    let nested = |levels: usize| (0..levels).fold(json!("x"), |inner, _| json!([inner]));
    let cases = [
        (
            json!({ "a": nested(33) }),
            Some("nested deeper than 32 levels"),
        ),
        (
            json!({ "a": "x".repeat(1 << 20) }),
            Some("larger than 1048576 bytes"),
        ),
        (json!({ "a": nested(20) }), None),
        (json!({ "a": "x".repeat(100_000) }), None),
    ];
    for (responses, refused) in cases {
        let mut params = valid("tools/call");
        params["inputResponses"] = responses;
        let (status, reply) = http.modern("tools/call", params).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["id"], 7, "{reply}");
        match refused {
            Some(words) => {
                assert_eq!(reply["error"]["code"], -32602, "{reply}");
                let message = reply["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains(words), "{message}");
            }
            // Past the limits check, the call runs and answers (this client declares no form).
            None => assert_eq!(reply["result"]["resultType"], "complete", "{reply}"),
        }
    }
}

/// The pre-scan answers only requests rmcp would have read: its checks of the headers (DNS
/// rebinding, `Accept`) and of the body size come first.
#[tokio::test]
async fn rmcp_refusals_at_the_door_still_come_before_the_pre_scan() {
    support::install_runtime("deploy-service");
    let http = start_http().await;
    let malformed = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": "deploy_service", "_meta": 1 } });
    let status = |response: reqwest::Response| response.status().as_u16();

    let rebinding = http
        .post(&malformed)
        .header("Host", "evil.example")
        .header("MCP-Protocol-Version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(status(rebinding), 403, "a foreign Host is refused first");

    let no_sse = http
        .client
        .post(&http.url)
        .header("Accept", "application/json")
        .json(&malformed)
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(no_sse),
        406,
        "an Accept rmcp refuses is refused first"
    );

    // The layer wraps every POST's body; one whose `Content-Type` rmcp refuses is refused
    // before rmcp reads it, so the pre-scan has nothing to answer in its place.
    let not_json = http
        .client
        .post(&http.url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "text/plain")
        .header("MCP-Protocol-Version", "2026-07-28")
        .body(malformed.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(not_json),
        415,
        "a Content-Type rmcp refuses is refused first"
    );

    let mut huge = malformed.clone();
    huge["params"]["padding"] = json!("x".repeat(5 * 1024 * 1024));
    let too_large = http
        .post(&huge)
        .header("MCP-Protocol-Version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(too_large),
        413,
        "a body over rmcp's limit is refused by size"
    );

    // And a well-formed request behind the layer is served as before (this client declared no
    // form, so the tool answers with its fallback text).
    let (status, reply) = http
        .modern(
            "tools/call",
            json!({ "name": "deploy_service", "arguments": { "service": "checkout-api" } }),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert!(reply.to_string().contains("checkout-api"), "{reply}");
}
