//! The examples' listener sets `TCP_NODELAY`. Without it, the last small write of each answer on
//! a kept-alive connection waits for the client's delayed ACK (about 40 ms on Linux), which caps
//! a server at a few hundred flows per second. This is the one latency check in the suite: it
//! guards that stall, not speed — 30 ms is far above a loopback round and below the stall.
//! A 2026-07-28 answer is one JSON body, written at once; a legacy session's answer is an SSE
//! stream of several small writes, the shape that stalls, so both are driven.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use mrtr::StrictParams;
use mrtr::prescan::Prescan;
use mrtr_examples::Launch;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use serde_json::{Value, json};

mod support;

/// Serves `deploy_service` through `mrtr_examples::serve`, the function every example binary
/// calls, on a free loopback port.
async fn serve_example() -> SocketAddr {
    support::install_runtime("deploy-service");
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port");
    tokio::spawn(async move {
        let ops = Ops::new();
        let launch = Launch::Http(addr);
        let make = move || StrictParams::new(Deployer::new(ops.clone()));
        let _ = mrtr_examples::serve(&launch, "nodelay", Some(Prescan::default()), make).await;
    });
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return addr;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the example did not listen on {addr}");
}

fn round(id: u64, answers: Option<Value>, state: Option<Value>) -> Value {
    let mut params = json!({ "name": "deploy_service", "arguments": { "service": "checkout-api" },
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                   "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } } } });
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    if let Some(state) = state {
        params["requestState"] = state;
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// The JSON-RPC result in a JSON or SSE body.
fn result_of(body: &[u8]) -> Value {
    support::message_in(&String::from_utf8_lossy(body))["result"].clone()
}

/// One kept-alive connection to `addr`, opened once: hyper's connection API cannot open another,
/// so every request sent through it reuses it. The client side sets TCP_NODELAY too, so only the
/// server can stall.
async fn one_connection(addr: SocketAddr) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, connection) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(connection);
    sender
}

/// What came back for one POST, and how long the whole answer took to arrive.
struct Answer {
    status: u16,
    content_type: String,
    body: Bytes,
    took: Duration,
}

/// POSTs `body` to `/mcp` with `headers` and reads the whole answer.
async fn post(
    sender: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    headers: &[(&str, &str)],
    body: &Value,
) -> Answer {
    let mut request = hyper::Request::post(format!("http://{addr}/mcp"))
        .header("Host", addr.to_string())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(serde_json::to_vec(body).unwrap())))
        .unwrap();
    let started = Instant::now();
    let response = sender
        .send_request(request)
        .await
        .expect("the request is answered");
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        content_type: content_type.unwrap_or_default(),
        body,
        took: started.elapsed(),
    }
}

fn assert_no_stall(slowest: Duration, what: &str) {
    assert!(
        slowest < Duration::from_millis(30),
        "the slowest of 200 {what} took {slowest:?}: an answer waited for a delayed ACK"
    );
}

/// 2026-07-28 rounds: answered as one JSON body each, one write, so they also guard that the
/// JSON answers stay whole.
#[tokio::test]
async fn two_hundred_sequential_rounds_on_one_kept_alive_connection_never_wait_for_a_delayed_ack() {
    let addr = serve_example().await;
    let mut sender = one_connection(addr).await;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "deploy_service"),
    ];
    let mut slowest = Duration::ZERO;
    let mut state = None;
    for id in 1..=200u64 {
        let answers = state
            .as_ref()
            .map(|_| json!({ "target_env": { "action": "accept", "content": { "environment": "staging" } } }));
        let body = round(id, answers, state.take());
        let answer = post(&mut sender, addr, &headers, &body).await;
        assert_eq!(answer.status, 200, "round {id}");
        assert_eq!(answer.content_type, "application/json", "round {id}");
        slowest = slowest.max(answer.took);
        let result = result_of(&answer.body);
        if id % 2 == 1 {
            assert_eq!(
                result["resultType"], "input_required",
                "round {id}: {result}"
            );
            state = Some(result["requestState"].clone());
        } else {
            assert_eq!(result["resultType"], "complete", "round {id}: {result}");
        }
    }
    assert_no_stall(slowest, "rounds");
}

/// Legacy sessions answer every request as an SSE stream: the headers, the event and the stream's
/// end are separate small writes, which is where a missing TCP_NODELAY holds the last one back
/// for the client's delayed ACK.
#[tokio::test]
async fn two_hundred_sequential_legacy_session_requests_never_wait_for_a_delayed_ack() {
    let addr = serve_example().await;
    // The session is opened on a connection of its own: the one measured below carries only
    // the requests timed.
    let url = format!("http://{addr}/mcp");
    let session = support::open_legacy_session(&reqwest::Client::new(), &url, json!({})).await;
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let mut sender = one_connection(addr).await;

    let mut slowest = Duration::ZERO;
    for id in 1..=200u64 {
        let list = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" });
        let answer = post(&mut sender, addr, &in_session, &list).await;
        assert_eq!(answer.status, 200, "request {id}");
        assert_eq!(answer.content_type, "text/event-stream", "request {id}");
        let tools = result_of(&answer.body)["tools"].clone();
        assert!(
            tools
                .as_array()
                .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "deploy_service")),
            "request {id}: {tools}"
        );
        slowest = slowest.max(answer.took);
    }
    assert_no_stall(slowest, "legacy requests");
}
