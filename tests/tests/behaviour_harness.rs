//! The harness itself, checked against hand-written rmcp tools (no mrtr): the scripted client
//! answers and records in both eras, declares exactly the capabilities it was given, and the
//! server transcript sees every round.
#![allow(deprecated)] // roots are deprecated by SEP-2577 but still part of the protocol

use mrtr::testing::*;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ErrorData,
    InputRequest, InputRequests, InputRequiredResult,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router};
use serde_json::{Value, json};

struct Hand;

fn name_form(message: &str) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.into(),
        requested_schema: serde_json::from_value(json!({
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]
        }))
        .expect("a valid restricted schema"),
    }
}

#[tool_router]
impl Hand {
    /// Legacy-only: awaits a real elicitation, then reports what the session declared.
    #[tool(description = "legacy elicitation")]
    async fn legacy_name(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caps = serde_json::to_value(context.client_capabilities()).unwrap_or(Value::Null);
        let answer = context
            .peer
            .create_elicitation(name_form("Your name?"))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let answer = serde_json::to_value(answer).unwrap_or(Value::Null);
        Ok(CallToolResult::success(vec![ContentBlock::text(
            json!({"answer": answer, "caps": caps}).to_string(),
        )]))
    }

    /// Modern-only: one `input_required` round keyed `name`, then echoes the answer and state.
    #[tool(description = "hand-written MRTR round")]
    async fn modern_name(
        &self,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caps = serde_json::to_value(context.client_capabilities()).unwrap_or(Value::Null);
        match (state, responses.and_then(|mut r| r.remove("name"))) {
            (Some(state), Some(answer)) => Ok(CallToolResult::success(vec![ContentBlock::text(
                json!({"answer": answer, "state": state, "caps": caps}).to_string(),
            )])
            .into()),
            _ => {
                let mut requests = InputRequests::new();
                requests.insert(
                    "name".into(),
                    InputRequest::Elicitation(ElicitRequest::new(name_form("Your name?"))),
                );
                Ok(InputRequiredResult::new(Some(requests), Some("opaque".into())).into())
            }
        }
    }
}

fn server() -> TestServer<Hand> {
    TestServer::plain(Hand, Hand::tool_router())
}

fn parsed(result: &CallToolResult) -> Value {
    serde_json::from_str(&text_of(result)).expect("the hand tools answer with JSON text")
}

#[tokio::test]
async fn legacy_session_sends_a_real_elicitation_answered_by_the_script() {
    let client =
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit("name", [accept(json!({"name": "ann"}))]);
    let server = server();
    let transcript = server.transcript();
    let session = connect(server, client.clone(), Era::Legacy).await;
    let out = parsed(
        &session
            .call("legacy_name", json!({}))
            .await
            .expect("the call completes"),
    );
    assert_eq!(out["answer"]["action"], "accept");
    assert_eq!(out["answer"]["content"], json!({"name": "ann"}));
    assert_eq!(out["caps"], json!({"elicitation": {"form": {}}}));
    let received = client.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].method, "elicitation/create");
    assert_eq!(
        received[0].key, None,
        "a legacy request has a numeric id, not an inputRequests key"
    );
    assert_eq!(transcript.len(), 1);
    assert_eq!(transcript.input_required(), 0);
    session.close().await;
}

#[tokio::test]
async fn modern_session_fulfils_input_required_through_the_same_script() {
    let client = ScriptedClient::new(Caps::ALL).on_elicit("name", [accept(json!({"name": "bob"}))]);
    let server = server();
    let transcript = server.transcript();
    let session = connect(server, client.clone(), Era::Modern).await;
    let out = parsed(
        &session
            .call("modern_name", json!({}))
            .await
            .expect("the call completes"),
    );
    assert_eq!(out["answer"]["content"], json!({"name": "bob"}));
    assert_eq!(
        out["state"], "opaque",
        "rmcp's driver echoes requestState byte-exact"
    );
    assert_eq!(
        out["caps"]["sampling"],
        json!({}),
        "capabilities travel in the request's _meta"
    );
    let received = client.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].key.as_deref(),
        Some("name"),
        "the driver passes the inputRequests key"
    );
    assert_eq!(transcript.len(), 2);
    assert_eq!(transcript.asked_keys(), vec![vec!["name".to_owned()]]);
    assert_eq!(
        transcript.rounds()[1].response_keys,
        vec!["name".to_owned()]
    );
    session.close().await;
}

#[tokio::test]
async fn raw_rounds_expose_keys_and_state_and_accept_hand_built_responses() {
    let session = connect(server(), ScriptedClient::new(Caps::NONE), Era::Modern).await;
    let first = expect_input_required(session.round("modern_name", json!({}), None, None).await);
    assert_eq!(keys_of(&first), vec!["name".to_owned()]);
    assert_eq!(requests_of(&first)["name"]["method"], "elicitation/create");
    let answer = json!({"name": {"action": "decline"}});
    let done = expect_complete(
        session
            .round("modern_name", json!({}), Some(answer), first.request_state)
            .await,
    );
    assert_eq!(parsed(&done)["answer"], json!({"action": "decline"}));
    assert_eq!(
        parsed(&done)["caps"],
        json!({}),
        "Caps::NONE declares nothing"
    );
    session.close().await;
}

#[tokio::test]
async fn script_replies_in_turn_repeat_the_last_and_refuse_unscripted_requests() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("name", [Reply::Decline, accept(json!({"name": "c"}))]);
    let session = connect(server(), client.clone(), Era::Legacy).await;
    for expected in ["decline", "accept", "accept"] {
        let out = parsed(
            &session
                .call("legacy_name", json!({}))
                .await
                .expect("the call completes"),
        );
        assert_eq!(out["answer"]["action"], expected);
    }
    assert_eq!(client.asked("Your name?"), 3);
    session.close().await;

    let silent = ScriptedClient::new(Caps::FORM_ONLY);
    let session = connect(server(), silent.clone(), Era::Legacy).await;
    let (_, message) = expect_rpc_error(session.call("legacy_name", json!({})).await);
    assert!(
        message.contains("no answer for"),
        "an unscripted request fails instead of being answered: {message}"
    );
    assert_eq!(silent.received().len(), 1);
    session.close().await;
}
