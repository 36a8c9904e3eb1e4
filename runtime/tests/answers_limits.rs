//! Bounds on `inputResponses`: too many keys, too deep, too large.

use std::collections::BTreeMap;

use mrtr::MrtrError;
use mrtr::limits::Limits;
use serde_json::{Value, json};

fn responses(entries: impl IntoIterator<Item = (String, Value)>) -> BTreeMap<String, Value> {
    entries.into_iter().collect()
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(1), |inner, _| json!([inner]))
}

fn rejected(limits: &Limits, r: &BTreeMap<String, Value>) -> bool {
    matches!(limits.check(r), Err(MrtrError::InvalidInputResponses(_)))
}

#[test]
fn as_many_keys_as_the_limit_are_accepted() {
    let limits = Limits {
        max_keys: 3,
        ..Limits::default()
    };
    let r = responses((0..3).map(|i| (format!("k{i}"), json!({ "action": "cancel" }))));
    assert!(limits.check(&r).is_ok());
}

#[test]
fn one_key_over_the_limit_is_rejected() {
    let limits = Limits {
        max_keys: 3,
        ..Limits::default()
    };
    let r = responses((0..4).map(|i| (format!("k{i}"), json!({ "action": "cancel" }))));
    assert!(rejected(&limits, &r));
}

#[test]
fn nesting_at_the_depth_limit_is_accepted() {
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    assert!(limits.check(&responses([("k".into(), nested(4))])).is_ok());
    assert!(
        limits
            .check(&responses([(
                "k".into(),
                json!({ "a": { "b": { "c": [1] } } })
            )]))
            .is_ok()
    );
}

#[test]
fn nesting_past_the_depth_limit_is_rejected() {
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    assert!(rejected(&limits, &responses([("k".into(), nested(5))])));
    assert!(rejected(
        &limits,
        &responses([("k".into(), json!({ "a": { "b": { "c": [[1]] } } }))])
    ));
}

#[test]
fn very_deep_input_is_rejected_without_exhausting_the_stack() {
    let limits = Limits::default();
    // Built iteratively; deeper than any recursive walk could survive on a test thread.
    let mut value = json!(null);
    for _ in 0..200_000 {
        value = Value::Array(vec![value]);
    }
    let r = responses([("k".into(), value)]);
    assert!(rejected(&limits, &r));
    // serde_json's own Drop is recursive; unwind the nesting by hand.
    let mut value = r.into_values().next().unwrap();
    while let Value::Array(mut items) = value {
        value = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn responses_of_exactly_the_byte_limit_are_accepted() {
    let r = responses([("k".into(), json!("x".repeat(10)))]);
    let size = serde_json::to_vec(&r).unwrap().len();
    let limits = Limits {
        max_bytes: size,
        ..Limits::default()
    };
    assert!(limits.check(&r).is_ok());
    let limits = Limits {
        max_bytes: size - 1,
        ..Limits::default()
    };
    assert!(rejected(&limits, &r));
}

#[test]
fn a_large_response_is_rejected_with_invalid_params() {
    let r = responses([(
        "k".into(),
        json!({ "action": "accept", "content": { "blob": "x".repeat(2 << 20) } }),
    )]);
    let error = Limits::default().check(&r).unwrap_err();
    assert!(matches!(error, MrtrError::InvalidInputResponses(_)));
    let error: rmcp::ErrorData = error.into();
    assert_eq!(error.code.0, -32602);
}

#[test]
fn default_limits_accept_a_conformance_sized_round() {
    let r = responses([
        (
            "user_name".into(),
            json!({ "action": "accept", "content": { "name": "Alice" } }),
        ),
        (
            "greeting".into(),
            json!({ "role": "assistant", "content": { "type": "text", "text": "Hello there!" }, "model": "m" }),
        ),
        (
            "client_roots".into(),
            json!({ "roots": [{ "uri": "file:///test/root", "name": "Test Root" }] }),
        ),
    ]);
    assert!(Limits::default().check(&r).is_ok());
}
