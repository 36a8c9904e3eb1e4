//! A legacy Streamable HTTP session abandoned mid-elicitation (the client opened a call, was
//! sent the form, and went away without answering or deleting the session) is reclaimed after
//! the configured idle timeout: rmcp's `LocalSessionManager` forgets it, the session's handler
//! is dropped, and the heap it held returns. Served as the examples serve
//! (`mrtr_examples::mcp_router` with `session_manager(idle)`).
//!
//! The handler goes some seconds after the session: when a session closes, rmcp gives its
//! in-flight handlers up to 5 s to finish (the call waiting on the form is one) before it drops
//! them, so everything is back at about the idle timeout + 5 s.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mrtr::prescan::Prescan;
use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use mrtr_tests::heap::{Counting, live};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod support;

#[global_allocator]
static HEAP: Counting = Counting;

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
    support::serve_http(router).await
}

/// Opens a legacy session that can show forms, calls `deploy`, reads the SSE stream until the
/// server's `elicitation/create` arrives, and walks away: the stream is dropped unanswered and
/// the session is never deleted.
async fn abandon_a_session_mid_elicitation(url: &str) {
    let client = reqwest::Client::new();
    let forms = json!({ "elicitation": { "form": {} } });
    let session = support::open_legacy_session(&client, url, forms).await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "deploy", "arguments": {} } });
    let mut stream = support::post_json(&client, url, &call)
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .expect("the call is accepted");
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
    let baseline = live();

    abandon_a_session_mid_elicitation(&url).await;
    assert_eq!(
        sessions.sessions.read().await.len(),
        1,
        "held until the timeout"
    );
    assert_eq!(instances(&alive), 1, "the session's handler is still held");
    let held = live().saturating_sub(baseline);

    let waited = wait_until_reclaimed(&sessions, &alive).await;
    let after = live().saturating_sub(baseline);
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
