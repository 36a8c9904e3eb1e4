//! `deploy_service` over real Streamable HTTP (axum on a loopback port): both eras through rmcp's
//! HTTP client, and the continuation bound to the authenticated principal taken from the HTTP
//! identity.

use std::net::SocketAddr;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use mrtr::prescan::Prescan;
use mrtr::testing::{Caps, ScriptedClient, accept};
use mrtr::testing::{expect_input_required, expect_rpc_error, params, text_of};
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientServiceExt, ServiceExt};
use serde_json::json;

mod support;

fn install_runtime() {
    support::install_runtime("deploy-service");
}

/// Stands in for a real auth layer: the bearer token names the user. What matters is that the
/// principal reaches mrtr through the HTTP request's extensions.
async fn authenticate(mut request: Request, next: Next) -> Response {
    let subject = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned);
    if let Some(subject) = subject {
        request.extensions_mut().insert(mrtr::Principal(subject));
    }
    next.run(request).await
}

/// Served as the examples serve: `mcp_router` (the pre-scan in front of rmcp's service) behind
/// the auth layer, on a listener from `bind_nodelay`.
async fn start(ops: Ops) -> SocketAddr {
    let router = mrtr_examples::mcp_router(
        move || Deployer::new(ops.clone()),
        Some(Prescan::default()),
        mrtr_examples::session_manager(mrtr_examples::DEFAULT_SESSION_IDLE),
    )
    .layer(axum::middleware::from_fn(authenticate));
    support::serve_http(router).await
}

async fn client(
    addr: SocketAddr,
    user: &str,
    scripted: ScriptedClient,
    modern: bool,
) -> RunningService<RoleClient, ScriptedClient> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"));
    config.auth_header = Some(user.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    if modern {
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        scripted
            .serve_with_lifecycle(transport, mode)
            .await
            .expect("a 2026-07-28 client connects")
    } else {
        scripted
            .serve(transport)
            .await
            .expect("a legacy client connects")
    }
}

#[tokio::test]
async fn deploy_service_works_over_streamable_http_in_both_eras() {
    install_runtime();
    for modern in [true, false] {
        let ops = Ops::new();
        let addr = start(ops.clone()).await;
        let scripted = ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
            "which environment",
            [accept(json!({ "environment": "production" }))],
        );
        let running = client(addr, "alice", scripted.clone(), modern).await;
        let result = running
            .call_tool(params(
                "deploy_service",
                json!({ "service": "checkout-api" }),
            ))
            .await
            .expect("the call completes");
        assert!(
            text_of(&result).starts_with("Deployed checkout-api to production"),
            "modern={modern}"
        );
        assert_eq!(scripted.asked("which environment"), 1, "modern={modern}");
        assert_eq!(ops.count("build_plan"), 1, "modern={modern}");
        assert_eq!(ops.count("deploy"), 1, "modern={modern}");
        let _ = running.cancel().await;
    }
}

#[tokio::test]
async fn a_continuation_minted_for_one_user_is_refused_for_another() {
    install_runtime();
    let ops = Ops::new();
    let addr = start(ops.clone()).await;
    let alice = client(addr, "alice", ScriptedClient::new(Caps::FORM_ONLY), true).await;
    let bob = client(addr, "bob", ScriptedClient::new(Caps::FORM_ONLY), true).await;

    let call = params("deploy_service", json!({ "service": "checkout-api" }));
    let first = expect_input_required(alice.call_tool_once(call.clone()).await);
    let answer: serde_json::Map<String, serde_json::Value> = serde_json::from_value(
        json!({ "target_env": { "action": "accept", "content": { "environment": "production" } } }),
    )
    .unwrap();
    let mut retry = call.clone();
    retry.input_responses = Some(answer.into_iter().collect());
    retry.request_state = first.request_state.clone();

    let (code, message) = expect_rpc_error(bob.call_tool_once(retry.clone()).await);
    assert_eq!(code, -32602, "{message}");
    assert_eq!(ops.count("deploy"), 0, "bob cannot approve alice's deploy");

    let done = alice
        .call_tool_once(retry)
        .await
        .expect("alice's own retry completes");
    assert!(format!("{done:?}").contains("Deployed checkout-api to production"));
    assert_eq!(ops.count("deploy"), 1);
    let _ = alice.cancel().await;
    let _ = bob.cancel().await;
}

/// One 2026-07-28 `deploy_service` call declaring `capabilities` in its `_meta`: what the
/// JSON-RPC answer's `result` holds.
async fn deploy_declaring(url: &str, capabilities: serde_json::Value) -> serde_json::Value {
    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "deploy_service",
        "arguments": { "service": "checkout-api" },
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
    } });
    let body = support::post_modern(&reqwest::Client::new(), url, &call)
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a body");
    support::message_in(&body)["result"].clone()
}

/// Server and client share this test's one thread, so every call is read by the thread that
/// read the last: the capabilities it kept from an equal declaration must never stand in for
/// another request's.
#[tokio::test]
async fn each_call_is_judged_by_the_capabilities_its_own_meta_declares() {
    install_runtime();
    let addr = start(Ops::default()).await;
    let url = format!("http://{addr}/mcp");
    let form = json!({ "elicitation": { "form": {} } });
    let asks = |result: &serde_json::Value| result["resultType"] == "input_required";
    for declared in [
        form.clone(),
        json!({}),
        form.clone(),
        json!({ "elicitation": { "url": {} } }),
        json!({ "elicitation": {} }),
        json!({ "sampling": {} }),
        form,
    ] {
        let result = deploy_declaring(&url, declared.clone()).await;
        let elicits_forms =
            declared["elicitation"].is_object() && declared["elicitation"]["url"].is_null();
        assert_eq!(
            asks(&result),
            elicits_forms,
            "declaring {declared}: {result}"
        );
        if !elicits_forms {
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert!(
                text.contains("cannot show a confirmation form"),
                "declaring {declared}: {result}"
            );
        }
    }
}
