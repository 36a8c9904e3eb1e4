//! What the example tests share: the process-wide mrtr runtime the example servers use, and
//! raw Streamable HTTP serving and requests. Each test binary uses its part of it.
#![allow(dead_code)]

/// Installs, once per test binary, the runtime the examples would read from `MRTR_STATE_KEYS`:
/// a fixed key, so every server instance in the binary opens every other's tokens.
pub fn install_runtime(audience: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let key = mrtr::config::StateKey::new("k1", [7u8; 32]).expect("a 32-byte key is accepted");
        let config = mrtr::config::StateConfig::new(audience, mrtr::config::KeyRing::new(key));
        mrtr::Runtime::new(config)
            .expect("valid configuration")
            .install();
    });
}

/// Serves `router` on a loopback port as the examples serve HTTP (`bind_nodelay`); returns the
/// address. The server lives as long as the test's runtime.
pub async fn serve_http(router: axum::Router) -> std::net::SocketAddr {
    let (listener, addr) = mrtr_examples::bind_nodelay("127.0.0.1:0".parse().unwrap())
        .await
        .expect("a loopback port");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// A raw JSON-RPC POST to a Streamable HTTP endpoint, with the headers rmcp requires.
pub fn post_json(
    client: &reqwest::Client,
    url: &str,
    body: &serde_json::Value,
) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(body)
}

/// A 2026-07-28 request: [`post_json`] with the headers the revision requires beside the body,
/// `Mcp-Method` and `Mcp-Name` (the params' `name`, or `uri`) read from `body` itself.
pub fn post_modern(
    client: &reqwest::Client,
    url: &str,
    body: &serde_json::Value,
) -> reqwest::RequestBuilder {
    let mut request = post_json(client, url, body).header("MCP-Protocol-Version", "2026-07-28");
    if let Some(method) = body["method"].as_str() {
        request = request.header("Mcp-Method", method);
    }
    let params = &body["params"];
    if let Some(name) = params
        .get("name")
        .or(params.get("uri"))
        .and_then(|v| v.as_str())
    {
        request = request.header("Mcp-Name", name);
    }
    request
}

/// The JSON-RPC response in a body, whether it came as plain JSON or as an SSE stream (the
/// stream's message with an `id`).
pub fn message_in(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|_| {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in {body:?}"))
    })
}

/// Opens a legacy session over raw Streamable HTTP (`initialize` declaring `capabilities`, then
/// `notifications/initialized`); returns its id.
pub async fn open_legacy_session(
    client: &reqwest::Client,
    url: &str,
    capabilities: serde_json::Value,
) -> String {
    let initialize = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": { "name": "raw", "version": "1" } } });
    let response = post_json(client, url, &initialize)
        .send()
        .await
        .expect("initialize is answered");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a legacy session id")
        .to_owned();
    let _ = response.text().await;
    let initialized = post_json(
        client,
        url,
        &serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    )
    .header("Mcp-Session-Id", &session)
    .header("MCP-Protocol-Version", "2025-11-25")
    .send()
    .await
    .expect("initialized is sent");
    assert_eq!(initialized.status(), 202, "initialized is accepted");
    session
}
