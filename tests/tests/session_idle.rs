//! A legacy Streamable HTTP session abandoned mid-elicitation (the client opened a call, was
//! sent the form, and went away without answering or deleting the session) is reclaimed after
//! the configured idle timeout: rmcp's `LocalSessionManager` forgets it, the session's handler
//! is dropped, and the heap it held returns. Served as the examples serve
//! (`mrtr_examples::mcp_router` with `session_manager(idle)`).
//!
//! The handler goes some seconds after the session: when a session closes, rmcp gives its
//! in-flight handlers up to 5 s to finish (the call waiting on the form is one) before it drops
//! them, so everything is back at about the idle timeout + 5 s.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mrtr::prescan::Prescan;
use mrtr::{Answer, ask, mrtr_tool};
use mrtr_tests::harness::*;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Live heap bytes, so the test can see what a session holds and that it comes back.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

/// One per session (the service factory makes one for each `initialize`); `_alive` counts the
/// instances still held.
struct Deployer {
    _alive: Arc<()>,
}

#[tool_router]
impl Deployer {
    #[mrtr_tool]
    #[tool(description = "asks before deploying")]
    async fn deploy(&self) -> Result<CallToolResult, ErrorData> {
        let answer = ask!(confirm: elicit::<Confirm>("Deploy checkout-api?"));
        let text = match answer {
            Answer::Accept(Confirm { ok: true }) => "deployed",
            _ => "not deployed",
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

const IDLE: Duration = Duration::from_millis(400);

async fn start(alive: Arc<()>, sessions: Arc<LocalSessionManager>) -> SocketAddr {
    let runtime = test_runtime("session-idle");
    let router = mrtr_examples::mcp_router(
        move || {
            TestServer::new(
                Deployer {
                    _alive: alive.clone(),
                },
                Deployer::tool_router(),
                runtime.clone(),
            )
        },
        Some(Prescan::default()),
        sessions,
    );
    let (listener, addr) = mrtr_examples::bind_nodelay("127.0.0.1:0".parse().unwrap())
        .await
        .expect("a loopback port");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

fn post(client: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(body)
}

/// Opens a legacy session that can show forms, calls `deploy`, reads the SSE stream until the
/// server's `elicitation/create` arrives, and walks away: the stream is dropped unanswered and
/// the session is never deleted.
async fn abandon_a_session_mid_elicitation(url: &str) {
    let client = reqwest::Client::new();
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": { "elicitation": { "form": {} } },
        "clientInfo": { "name": "walks-away", "version": "1" } } });
    let response = post(&client, url, &initialize)
        .send()
        .await
        .expect("initialize");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a legacy session")
        .to_owned();
    let _ = response.text().await;
    let legacy = |body: &Value| {
        post(&client, url, body)
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25")
    };
    legacy(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .send()
        .await
        .expect("initialized");
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "deploy", "arguments": {} } });
    let mut stream = legacy(&call).send().await.expect("the call is accepted");
    let mut seen = String::new();
    let asked = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("elicitation/create") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(
        asked,
        Ok(true),
        "the form was sent on the call's stream: {seen}"
    );
    drop(stream);
}

#[tokio::test]
async fn an_abandoned_legacy_session_is_reclaimed_after_the_idle_timeout() {
    let alive = Arc::new(());
    let sessions = mrtr_examples::session_manager(IDLE);
    let addr = start(alive.clone(), sessions.clone()).await;
    let url = format!("http://{addr}/mcp");

    // A first abandoned session warms everything a session touches once per process (lazy
    // statics, the HTTP client's pools), so the second one can be measured on its own.
    abandon_a_session_mid_elicitation(&url).await;
    wait_until_reclaimed(&sessions, &alive).await;
    let baseline = LIVE.load(Ordering::Relaxed);

    abandon_a_session_mid_elicitation(&url).await;
    assert_eq!(
        sessions.sessions.read().await.len(),
        1,
        "held until the timeout"
    );
    assert_eq!(instances(&alive), 1, "the session's handler is still held");
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(baseline);

    let waited = wait_until_reclaimed(&sessions, &alive).await;
    let after = LIVE.load(Ordering::Relaxed).saturating_sub(baseline);
    println!(
        "abandoned session: {held} bytes held, {after} bytes above the baseline {waited:?} later"
    );
    assert!(
        waited >= IDLE.saturating_sub(Duration::from_millis(100)),
        "not before the timeout: {waited:?}"
    );
    assert!(
        held > 8 * 1024,
        "a held session is visible on the heap: {held} bytes"
    );
    assert!(
        after < held / 4,
        "the heap returns: {held} bytes held, {after} still above the baseline"
    );
}

/// Handler instances alive: the count of `alive` without the test's own and the factory's.
fn instances(alive: &Arc<()>) -> usize {
    Arc::strong_count(alive) - 2
}

/// rmcp's grace for in-flight handlers when a session closes (`QuitReason::Closed`).
const RMCP_DRAIN: Duration = Duration::from_secs(5);

/// Waits (up to the idle timeout + rmcp's drain + 5 s of slack) until the manager has no session and no handler instance is left; returns
/// how long that took.
async fn wait_until_reclaimed(sessions: &LocalSessionManager, alive: &Arc<()>) -> Duration {
    let started = Instant::now();
    loop {
        if sessions.sessions.read().await.is_empty() && instances(alive) == 0 {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < IDLE + RMCP_DRAIN + Duration::from_secs(5),
            "not reclaimed: {} sessions, {} handler instances",
            sessions.sessions.read().await.len(),
            instances(alive)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
