//! The per-request capability gate on real sessions: an ask the client did not declare never
//! reaches the wire; when the handler cannot avoid it the call fails with -32021 and
//! `data.requiredCapabilities` naming exactly what is missing — on 2026-07-28 and on a legacy
//! session alike.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still part of the protocol

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage, Tool,
};
use rmcp::service::ServiceError;
use rmcp::{ErrorData, tool, tool_router};
use serde_json::{Value, json};

#[derive(Clone)]
struct Unavoidable {
    effects: Effects,
}

fn done(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

#[tool_router]
impl Unavoidable {
    #[mrtr_tool]
    #[tool(description = "needs a form")]
    async fn needs_form(&self) -> Result<CallToolResult, ErrorData> {
        self.effects.record("before");
        let name = ask!(name: elicit_with_schema::<Value>("Your name?", json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})));
        self.effects.record("after");
        Ok(done(format!("{:?}", name.accepted())))
    }

    #[mrtr_tool]
    #[tool(description = "needs a URL flow")]
    async fn needs_url(&self) -> Result<CallToolResult, ErrorData> {
        let opened =
            ask!(login: elicit_url("Sign in to continue", "https://auth.example.invalid/start"));
        Ok(done(format!("{}", matches!(opened, Answer::Accept(())))))
    }

    #[mrtr_tool]
    #[tool(description = "needs sampling with tools")]
    async fn needs_sampling_tools(&self) -> Result<CallToolResult, ErrorData> {
        let lookup = Tool::new("lookup", "Look something up", serde_json::Map::new());
        let mut request =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 50);
        request.tools = Some(vec![lookup]);
        let reply = ask!(answer: sample(request));
        Ok(done(format!("{}", reply.is_accept())))
    }
}

fn server(effects: &Effects) -> TestServer<Unavoidable> {
    TestServer::new(
        Unavoidable {
            effects: effects.clone(),
        },
        Unavoidable::tool_router(),
        test_runtime("gate"),
    )
}

fn missing_capability(outcome: Result<CallToolResult, ServiceError>) -> Value {
    match outcome {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32021, "{error:?}");
            error.data.expect("data")["requiredCapabilities"].clone()
        }
        other => panic!("expected -32021, got {other:?}"),
    }
}

#[tokio::test]
async fn an_undeclared_form_is_never_sent_and_fails_with_32021_in_both_eras() {
    for era in ERAS {
        let effects = Effects::default();
        let client = ScriptedClient::new(Caps {
            sampling: true,
            ..Caps::NONE
        });
        let session = connect(server(&effects), client, era).await;
        let required = missing_capability(session.call("needs_form", json!({})).await);
        assert_eq!(required, json!({ "elicitation": {} }), "{era:?}");
        assert!(
            session.client.received().is_empty(),
            "{era:?}: nothing reached the client"
        );
        assert_eq!(effects.count("after"), 0, "{era:?}");
        session.close().await;
    }
}

#[tokio::test]
async fn a_form_only_client_is_not_sent_a_url_elicitation() {
    for era in ERAS {
        let session = connect(
            server(&Effects::default()),
            ScriptedClient::new(Caps::FORM_ONLY),
            era,
        )
        .await;
        let required = missing_capability(session.call("needs_url", json!({})).await);
        assert_eq!(required, json!({ "elicitation": { "url": {} } }), "{era:?}");
        assert!(session.client.received().is_empty(), "{era:?}");
        session.close().await;
    }
}

#[tokio::test]
async fn sampling_with_tools_needs_sampling_tools() {
    for era in ERAS {
        let client = ScriptedClient::new(Caps {
            sampling: true,
            ..Caps::NONE
        });
        let session = connect(server(&Effects::default()), client, era).await;
        let required = missing_capability(session.call("needs_sampling_tools", json!({})).await);
        assert_eq!(required, json!({ "sampling": { "tools": {} } }), "{era:?}");
        assert!(session.client.received().is_empty(), "{era:?}");
        session.close().await;
    }
}

#[tokio::test]
async fn capabilities_are_judged_per_request_on_2026_07_28() {
    // Round one declared elicitation and got the form; a retry that no longer declares it is
    // answered against its own capabilities, not the first request's.
    let effects = Effects::default();
    let session = connect(
        server(&effects),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(session.round("needs_form", json!({}), None, None).await);
    assert!(first.request_state.is_some());
    assert_eq!(effects.count("before"), 1);
    session.close().await;
}
