#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! Decoding `inputResponses` values against the request each key was asked with.

use crate::answer::{Answer, decode};
use crate::request::InputRequest;
use crate::{Elicit, elicit, elicit_url, roots, sample};
use rmcp::model::{CreateMessageResult, ListRootsResult};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, PartialEq, Deserialize, Elicit)]
struct UserName {
    name: String,
}

#[derive(Debug, PartialEq, Deserialize, Elicit)]
struct Preferences {
    nickname: Option<String>,
}

fn form() -> InputRequest {
    elicit::<UserName>("Who are you?").into_request()
}

fn url() -> InputRequest {
    elicit_url("Sign in", "https://example.com/connect").into_request()
}

fn sampling() -> InputRequest {
    let params = serde_json::from_value(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Capital of France?" } }],
        "maxTokens": 50
    }))
    .unwrap();
    sample(params).into_request()
}

#[test]
fn accepted_form_content_decodes_as_the_form_type() {
    let answer = decode::<UserName>(
        &form(),
        &json!({ "action": "accept", "content": { "name": "Alice" } }),
    );
    assert_eq!(
        answer,
        Ok(Answer::Accept(UserName {
            name: "Alice".into()
        }))
    );
}

#[test]
fn decline_and_cancel_decode_whatever_content_they_carry() {
    let decline = decode::<UserName>(&form(), &json!({ "action": "decline" }));
    assert_eq!(decline, Ok(Answer::Decline));
    let cancel = decode::<UserName>(
        &form(),
        &json!({ "action": "cancel", "content": { "bogus": 1 } }),
    );
    assert_eq!(cancel, Ok(Answer::Cancel));
}

#[test]
fn accept_without_content_decodes_an_all_optional_form() {
    let request = elicit::<Preferences>("Anything else?").into_request();
    let answer = decode::<Preferences>(&request, &json!({ "action": "accept" }));
    assert_eq!(answer, Ok(Answer::Accept(Preferences { nickname: None })));
}

#[test]
fn accept_without_content_is_missing_when_the_form_has_required_fields() {
    assert!(decode::<UserName>(&form(), &json!({ "action": "accept" })).is_err());
    assert!(decode::<UserName>(&form(), &json!({ "action": "accept", "content": null })).is_err());
}

#[test]
fn malformed_elicitation_answers_are_missing() {
    for raw in [
        json!(12345),
        json!(null),
        json!({}),
        json!("accept"),
        json!([{ "action": "accept" }]),
        json!({ "content": { "name": "Alice" } }),
        json!({ "action": "maybe", "content": { "name": "Alice" } }),
        json!({ "action": "ACCEPT", "content": { "name": "Alice" } }),
        json!({ "action": 1, "content": { "name": "Alice" } }),
        json!({ "action": null }),
    ] {
        assert!(
            decode::<UserName>(&form(), &raw).is_err(),
            "{raw} should not decode"
        );
    }
}

#[test]
fn content_of_the_wrong_type_is_missing() {
    for content in [
        json!({ "name": 42 }),
        json!({ "nom": "Alice" }),
        json!("Alice"),
        json!([]),
    ] {
        let raw = json!({ "action": "accept", "content": content });
        assert!(
            decode::<UserName>(&form(), &raw).is_err(),
            "{raw} should not decode"
        );
    }
}

#[test]
fn extra_content_keys_do_not_stop_a_form_from_decoding() {
    let raw = json!({ "action": "accept", "content": { "name": "Alice", "age": 30 } });
    assert_eq!(
        decode::<UserName>(&form(), &raw),
        Ok(Answer::Accept(UserName {
            name: "Alice".into()
        }))
    );
}

#[test]
fn url_accept_without_content_decodes_as_unit() {
    assert_eq!(
        decode::<()>(&url(), &json!({ "action": "accept" })),
        Ok(Answer::Accept(()))
    );
    assert_eq!(
        decode::<()>(&url(), &json!({ "action": "accept", "content": {} })),
        Ok(Answer::Accept(()))
    );
    assert_eq!(
        decode::<()>(&url(), &json!({ "action": "decline" })),
        Ok(Answer::Decline)
    );
}

#[test]
fn url_accept_with_content_is_missing() {
    let raw = json!({ "action": "accept", "content": { "token": "secret" } });
    assert!(decode::<()>(&url(), &raw).is_err());
}

#[test]
fn sampling_result_decodes_as_create_message_result() {
    let raw = json!({
        "role": "assistant",
        "content": { "type": "text", "text": "The capital of France is Paris." },
        "model": "test-model",
        "stopReason": "endTurn"
    });
    let Ok(Answer::Accept(result)) = decode::<CreateMessageResult>(&sampling(), &raw) else {
        panic!("a well-formed sampling result must decode");
    };
    assert_eq!(result.model, "test-model");
    assert_eq!(
        result
            .message
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.as_str()),
        Some("The capital of France is Paris.")
    );
}

/// The model is handed over from the validating decode; any other type is decoded from the raw
/// answer. Both see the same checks and the same value.
#[test]
fn a_sampling_answer_decodes_alike_as_the_model_and_as_another_type() {
    #[derive(Debug, Deserialize)]
    struct JustTheModel {
        model: String,
    }
    let raw = json!({
        "role": "assistant",
        "content": { "type": "text", "text": "Paris." },
        "model": "test-model",
        "stopReason": "endTurn",
        "_meta": { "trace": "t-1" }
    });
    let Ok(Answer::Accept(model)) = decode::<CreateMessageResult>(&sampling(), &raw) else {
        panic!("a well-formed sampling result must decode");
    };
    assert_eq!(model, CreateMessageResult::deserialize(&raw).unwrap());
    let Ok(Answer::Accept(other)) = decode::<JustTheModel>(&sampling(), &raw) else {
        panic!("a well-formed sampling result must decode as any type that fits it");
    };
    assert_eq!(other.model, "test-model");
    let from_user =
        json!({ "role": "user", "content": { "type": "text", "text": "hi" }, "model": "m" });
    assert!(decode::<CreateMessageResult>(&sampling(), &from_user).is_err());
    assert!(decode::<JustTheModel>(&sampling(), &from_user).is_err());
}

#[test]
fn malformed_sampling_results_are_missing() {
    for raw in [
        json!(12345),
        json!(null),
        json!({}),
        json!({ "action": "accept", "content": { "name": "Alice" } }),
        json!({ "role": "assistant", "content": { "type": "text", "text": "hi" } }),
        json!({ "role": "user", "content": { "type": "text", "text": "hi" }, "model": "m" }),
    ] {
        assert!(
            decode::<CreateMessageResult>(&sampling(), &raw).is_err(),
            "{raw} should not decode"
        );
    }
}

#[test]
fn file_roots_decode_as_list_roots_result() {
    let raw = json!({ "roots": [{ "uri": "file:///test/root", "name": "Test Root" }] });
    let Ok(Answer::Accept(result)) = decode::<ListRootsResult>(&roots().into_request(), &raw)
    else {
        panic!("file roots must decode");
    };
    assert_eq!(result.roots.len(), 1);
    assert_eq!(result.roots[0].uri, "file:///test/root");
}

#[test]
fn a_root_that_is_not_a_file_uri_is_skipped_and_the_answer_kept() {
    // Re-asking would loop: the client answers the same way every round (README, Operating it).
    let raw = json!({ "roots": [{ "uri": "file:///ok" }, { "uri": "https://example.com/repo" }] });
    match decode::<ListRootsResult>(&roots().into_request(), &raw) {
        Ok(Answer::Accept(result)) => {
            let uris: Vec<&str> = result.roots.iter().map(|r| r.uri.as_str()).collect();
            assert_eq!(uris, ["file:///ok"]);
        }
        other => panic!("expected the file:// roots, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn malformed_roots_results_are_missing() {
    for raw in [
        json!(12345),
        json!(null),
        json!({}),
        json!({ "roots": "file:///x" }),
        json!({ "roots": [{ "name": "n" }] }),
    ] {
        assert!(
            decode::<ListRootsResult>(&roots().into_request(), &raw).is_err(),
            "{raw} should not decode"
        );
    }
}

#[test]
fn answer_helpers_keep_refusals_apart_from_consent() {
    let accepted: Answer<u8> = Answer::Accept(2);
    assert!(accepted.is_accept());
    assert_eq!(accepted.clone().map(|n| n * 2), Answer::Accept(4));
    assert_eq!(accepted.as_ref(), Answer::Accept(&2));
    assert_eq!(accepted.accepted(), Some(2));
    let declined: Answer<u8> = Answer::Decline;
    assert!(declined.is_decline() && !declined.is_accept());
    assert_eq!(declined.clone().map(|n| n * 2), Answer::Decline);
    assert_eq!(declined.accepted(), None);
    let cancelled: Answer<u8> = Answer::Cancel;
    assert!(cancelled.is_cancel());
    assert_eq!(cancelled.map(|n| n + 1).accepted(), None);
}

#[test]
fn an_untyped_form_keeps_the_whole_content_object() {
    let schema = json!({ "type": "object", "properties": { "context": { "type": "string" } } });
    let request = crate::elicit_with_schema::<serde_json::Map<String, Value>>("Context?", schema)
        .into_request();
    let raw = json!({ "action": "accept", "content": { "context": "test context", "extra": 1 } });
    let answer = decode::<serde_json::Map<String, Value>>(&request, &raw).unwrap();
    assert_eq!(
        answer.accepted().and_then(|m| m.get("context").cloned()),
        Some(json!("test context"))
    );
}

#[derive(Debug, PartialEq, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Free,
    Pro,
}

#[derive(Debug, PartialEq, Deserialize, Elicit)]
struct Order {
    #[elicit(min = 1, max = 10)]
    quantity: u32,
    #[elicit(min_length = 2, max_length = 5)]
    code: String,
    #[elicit(format = "email")]
    email: Option<String>,
    #[elicit(max_items = 1)]
    tiers: Vec<Tier>,
}

fn order() -> InputRequest {
    elicit::<Order>("Order").into_request()
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[test]
fn content_within_the_schema_bounds_is_accepted() {
    let raw =
        accept(json!({ "quantity": 10, "code": "ab", "email": "a@example.com", "tiers": ["pro"] }));
    let Ok(Answer::Accept(order)) = decode::<Order>(&order(), &raw) else {
        panic!("content inside every bound must decode");
    };
    assert_eq!(order.quantity, 10);
    assert_eq!(order.tiers, vec![Tier::Pro]);
}

#[test]
fn content_outside_the_schema_bounds_is_asked_again() {
    for content in [
        json!({ "quantity": 11, "code": "ab", "tiers": [] }),
        json!({ "quantity": 0, "code": "ab", "tiers": [] }),
        json!({ "quantity": 1, "code": "a", "tiers": [] }),
        json!({ "quantity": 1, "code": "abcdef", "tiers": [] }),
        json!({ "quantity": 1, "code": "ab", "email": "not-an-email", "tiers": [] }),
        json!({ "quantity": 1, "code": "ab", "tiers": ["free", "pro"] }),
        json!({ "quantity": 1.5, "code": "ab", "tiers": [] }),
    ] {
        assert!(
            decode::<Order>(&order(), &accept(content.clone())).is_err(),
            "{content} should be refused"
        );
    }
}

#[test]
fn raw_schema_forms_are_validated_too() {
    let schema = json!({
        "type": "object",
        "properties": {
            "color": { "type": "string", "oneOf": [{ "const": "red", "title": "Red" }, { "const": "blue", "title": "Blue" }] },
            "when": { "type": "string", "format": "date" }
        },
        "required": ["color"]
    });
    let request = crate::elicit_with_schema::<Value>("Pick", schema).into_request();
    assert!(
        decode::<Value>(
            &request,
            &accept(json!({ "color": "blue", "when": "2026-07-28" }))
        )
        .is_ok()
    );
    assert!(decode::<Value>(&request, &accept(json!({ "color": "green" }))).is_err());
    assert!(
        decode::<Value>(
            &request,
            &accept(json!({ "color": "red", "when": "28/07/2026" }))
        )
        .is_err()
    );
    assert!(decode::<Value>(&request, &json!({ "action": "accept" })).is_err());
}
