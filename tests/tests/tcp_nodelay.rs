//! The examples' listener sets `TCP_NODELAY`. Without it, the last small write of each answer on
//! a kept-alive connection waits for the client's delayed ACK (about 40 ms on Linux), which caps
//! a server at a few hundred flows per second. This is the one latency check in the suite: it
//! guards that stall, not speed — 30 ms is far above a loopback round and below the stall.

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

#[tokio::test]
async fn two_hundred_sequential_rounds_on_one_kept_alive_connection_never_wait_for_a_delayed_ack() {
    let addr = serve_example().await;
    // One connection, opened once: every round below reuses it (hyper's connection API cannot
    // open another). The client side sets TCP_NODELAY too, so only the server can stall.
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(connection);

    let mut slowest = Duration::ZERO;
    let mut state = None;
    for id in 1..=200u64 {
        let answers = state
            .as_ref()
            .map(|_| json!({ "target_env": { "action": "accept", "content": { "environment": "staging" } } }));
        let body = serde_json::to_vec(&round(id, answers, state.take())).unwrap();
        let request = hyper::Request::post(format!("http://{addr}/mcp"))
            .header("Host", addr.to_string())
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "deploy_service")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        let started = Instant::now();
        let response = sender
            .send_request(request)
            .await
            .expect("the round is answered");
        assert_eq!(response.status(), 200, "round {id}");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        slowest = slowest.max(started.elapsed());
        let result = result_of(&body);
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
    assert!(
        slowest < Duration::from_millis(30),
        "the slowest of 200 rounds took {slowest:?}: an answer waited for a delayed ACK"
    );
}
