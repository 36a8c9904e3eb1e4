//! Single use on Streamable HTTP behind `mrtr::delivery::DeliveryLayer`: a round's continuation
//! is spent when its response leaves, so a response that never leaves (its instance died first)
//! leaves the lease to run out instead of stranding the dialogue.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::body::Body;
use mrtr::delivery::DeliveryLayer;
use mrtr::replay::{Claim, InMemoryReplayGuard};
use mrtr::testing::{TestServer, guarded_runtime};
use mrtr::{StepKey, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, tool, tool_router};
use serde_json::json;

mod support;

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Clone, Default)]
struct Deploys {
    runs: Arc<AtomicUsize>,
    /// The idempotency key of the last run, as the back end would record it.
    last_key: Arc<std::sync::Mutex<Option<mrtr::replay::IdempotencyKey>>>,
}

#[tool_router]
impl Deploys {
    #[mrtr_tool]
    #[tool(description = "deploy after confirmation")]
    async fn deploy(&self, step: StepKey) -> Result<CallToolResult, ErrorData> {
        let confirm = ask!(confirm: elicit::<Confirm>("Deploy?"));
        self.runs.fetch_add(1, Ordering::SeqCst);
        *self.last_key.lock().unwrap() = step.get();
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deployed {ok}"
        ))]))
    }
}

/// The tool behind the delivery layer; while `swallow` is set, a middleware outside the layer
/// drops every response body unread, as an instance killed before its answer left would.
async fn start(
    deploys: Deploys,
    guard: Arc<InMemoryReplayGuard>,
    swallow: Arc<AtomicBool>,
) -> SocketAddr {
    let runtime = guarded_runtime("deploys", guard);
    let service = StreamableHttpService::new(
        move || {
            Ok(TestServer::new(
                deploys.clone(),
                Deploys::tool_router(),
                runtime.clone(),
            ))
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(DeliveryLayer)
        .layer(axum::middleware::map_response(
            move |response: axum::response::Response| {
                let swallow = swallow.load(Ordering::SeqCst);
                async move {
                    if swallow {
                        response.map(|_| Body::empty())
                    } else {
                        response
                    }
                }
            },
        ));
    support::serve_http(router).await
}

async fn round(url: &str, state: Option<&str>) -> String {
    let mut params = json!({
        "name": "deploy",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
        },
    });
    if let Some(state) = state {
        params["inputResponses"] =
            json!({ "confirm": { "action": "accept", "content": { "ok": true } } });
        params["requestState"] = json!(state);
    }
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    support::post_modern(&reqwest::Client::new(), url, &call)
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a body")
}

#[tokio::test]
async fn a_continuation_is_spent_when_its_response_leaves_not_when_it_is_computed() {
    let deploys = Deploys::default();
    let guard = Arc::new(InMemoryReplayGuard::new());
    let swallow = Arc::new(AtomicBool::new(false));
    let addr = start(deploys.clone(), guard.clone(), swallow.clone()).await;
    let url = format!("http://{addr}/mcp");
    let first = support::message_in(&round(&url, None).await);
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("input_required with requestState: {first}"))
        .to_owned();

    swallow.store(true, Ordering::SeqCst);
    let lost = round(&url, Some(&state)).await;
    assert!(lost.is_empty(), "the answer never left: {lost:?}");
    assert_eq!(deploys.runs.load(Ordering::SeqCst), 1, "the round ran");
    let key = deploys
        .last_key
        .lock()
        .unwrap()
        .expect("a resumed round has a key");
    assert_eq!(
        guard.claim_now(&key),
        Claim::InFlight,
        "not spent: the lease runs out and a retry takes the round over"
    );
    guard.release_now(&key);

    swallow.store(false, Ordering::SeqCst);
    let done = support::message_in(&round(&url, Some(&state)).await);
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed true",
        "{done}"
    );
    assert_eq!(
        guard.claim_now(&key),
        Claim::Spent,
        "this answer left: spent"
    );
    let again = support::message_in(&round(&url, Some(&state)).await);
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert_eq!(deploys.runs.load(Ordering::SeqCst), 2);
}
