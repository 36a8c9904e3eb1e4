#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! The exact 2026-07-28 payloads each request builder puts in `inputRequests`.

use crate::request::{InputMethod, InputRequest};
use crate::{Elicit, elicit, elicit_url, elicit_with_schema, roots, sample};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, Elicit)]
#[allow(dead_code)]
struct UserName {
    name: String,
}

fn wire(request: &InputRequest) -> Value {
    serde_json::to_value(request).unwrap()
}

/// The runtime converts every request into rmcp's `InputRequest` before it goes on the wire;
/// a builder whose payload rmcp cannot model would fail at that point.
fn fits_rmcp(request: &InputRequest) {
    let value = wire(request);
    let modelled: rmcp::model::InputRequest = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("rmcp cannot model {value}: {e}"));
    let _ = modelled;
}

#[test]
fn elicit_sends_a_form_with_the_derived_schema() {
    let ask = elicit::<UserName>("Who are you?");
    assert_eq!(
        wire(ask.request()),
        json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Who are you?",
                "requestedSchema": {
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }
            }
        })
    );
    assert!(!ask.request().is_url_elicitation());
    fits_rmcp(ask.request());
}

/// A derived form keeps its message apart from a params object and lends its schema; read
/// any way the runtime reads a request, it is the same request as the one written by hand.
#[test]
fn a_derived_form_reads_as_the_same_form_written_by_hand() {
    let derived = elicit::<UserName>("Who are \"you\"?").into_request();
    let by_hand = elicit_with_schema::<UserName>(
        "Who are \"you\"?",
        json!({
            "type": "object",
            "properties": { "name": { "type": "string" } },
            "required": ["name"]
        }),
    )
    .into_request();
    assert!(derived.form.is_some() && derived.params.is_none());
    assert_eq!(
        serde_json::to_string(&derived).unwrap(),
        serde_json::to_string(&by_hand).unwrap()
    );
    for name in ["mode", "message", "requestedSchema", "url"] {
        assert_eq!(derived.param(name), by_hand.param(name), "param `{name}`");
    }
    let model = |request: InputRequest| serde_json::to_value(request.into_rmcp().unwrap()).unwrap();
    assert_eq!(model(derived.clone()), model(by_hand.clone()));
    let legacy = |request: &InputRequest| {
        serde_json::to_value(request.form_params().unwrap().unwrap()).unwrap()
    };
    assert_eq!(legacy(&derived), legacy(&by_hand));
}

#[test]
fn elicit_with_schema_sends_the_schema_verbatim() {
    let schema = json!({
        "type": "object",
        "properties": { "ok": { "type": "boolean", "description": "Proceed?" } },
        "required": ["ok"]
    });
    let ask = elicit_with_schema::<serde_json::Map<String, Value>>("Confirm", schema.clone());
    assert_eq!(
        wire(ask.request()),
        json!({
            "method": "elicitation/create",
            "params": { "mode": "form", "message": "Confirm", "requestedSchema": schema }
        })
    );
    fits_rmcp(ask.request());
}

#[test]
fn elicit_url_sends_url_mode_without_an_elicitation_id() {
    let ask = elicit_url("Sign in to continue", "https://example.com/connect");
    assert_eq!(
        wire(ask.request()),
        json!({
            "method": "elicitation/create",
            "params": { "mode": "url", "message": "Sign in to continue", "url": "https://example.com/connect" }
        })
    );
    assert!(ask.request().is_url_elicitation());
    fits_rmcp(ask.request());
}

#[test]
fn sample_sends_the_rmcp_params_without_meta() {
    let params: rmcp::model::CreateMessageRequestParams = serde_json::from_value(json!({
        "_meta": { "progressToken": 7 },
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the capital of France?" } }],
        "systemPrompt": "Answer in one word.",
        "maxTokens": 50
    }))
    .unwrap();
    let ask = sample(params);
    assert_eq!(
        wire(ask.request()),
        json!({
            "method": "sampling/createMessage",
            "params": {
                "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the capital of France?" } }],
                "systemPrompt": "Answer in one word.",
                "maxTokens": 50
            }
        })
    );
    fits_rmcp(ask.request());
}

#[test]
fn roots_sends_an_empty_params_object() {
    let ask = roots();
    assert_eq!(
        wire(ask.request()),
        json!({ "method": "roots/list", "params": {} })
    );
    assert_eq!(ask.request().method, InputMethod::Roots);
    fits_rmcp(ask.request());
}

#[test]
fn only_url_mode_elicitation_counts_as_url_elicitation() {
    let form_without_mode = InputRequest::new(
        InputMethod::Elicitation,
        Some(json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } })),
    );
    assert!(!form_without_mode.is_url_elicitation());
    let sampling_with_url_mode =
        InputRequest::new(InputMethod::Sampling, Some(json!({ "mode": "url" })));
    assert!(!sampling_with_url_mode.is_url_elicitation());
    let no_params = InputRequest::new(InputMethod::Elicitation, None);
    assert!(!no_params.is_url_elicitation());
    let not_an_object = InputRequest::new(InputMethod::Elicitation, Some(json!("url")));
    assert!(!not_an_object.is_url_elicitation());
}
