#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! `decode` and the limits take attacker input: whatever JSON arrives, they return, never panic.

use std::collections::BTreeMap;

use crate::answer::decode;
use crate::limits::Limits;
use crate::request::InputRequest;
use crate::request::{elicit_url, elicit_with_schema, roots, sample};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z0-9@.:T-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("accept"),
            Just("decline"),
            Just("cancel"),
            Just("file:///x"),
            Just("assistant")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("action".to_string()),
                    Just("content".to_string()),
                    Just("roots".to_string()),
                    Just("uri".to_string()),
                    Just("role".to_string()),
                    Just("model".to_string()),
                    Just("name".to_string()),
                    Just("age".to_string()),
                    Just("when".to_string()),
                    Just("site".to_string()),
                    Just("pick".to_string()),
                    Just("many".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Elicitation answers shaped closely enough to reach the content decoding.
fn elicit_result() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("accept"),
            Just("decline"),
            Just("cancel"),
            Just("other")
        ],
        arbitrary_json(),
    )
        .prop_map(|(action, content)| json!({ "action": action, "content": content }))
}

fn requests() -> Vec<InputRequest> {
    let params = serde_json::from_value(json!({ "messages": [], "maxTokens": 1 })).unwrap();
    vec![
        elicit_with_schema::<Value>("m", json!({ "type": "object", "properties": {} }))
            .into_request(),
        elicit_with_schema::<Value>(
            "m",
            json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "minLength": 1, "format": "email" },
                    "age": { "type": "integer", "minimum": 0, "maximum": 5 },
                    "when": { "type": "string", "format": "date-time" },
                    "site": { "type": "string", "format": "uri" },
                    "pick": { "type": "string", "enum": ["accept", "x"] },
                    "many": { "type": "array", "maxItems": 2, "items": { "anyOf": [{ "const": "a", "title": "A" }] } },
                    "ok": { "type": "boolean" }
                },
                "required": ["name"]
            }),
        )
        .into_request(),
        elicit_url("m", "https://example.com").into_request(),
        sample(params).into_request(),
        roots().into_request(),
    ]
}

#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
struct Form {
    name: String,
    age: Option<u8>,
}

proptest! {
    #[test]
    fn decode_never_panics_on_arbitrary_json(raw in prop_oneof![arbitrary_json(), elicit_result()]) {
        for request in requests() {
            let _ = decode::<Value>(&request, &raw);
            let _ = decode::<Form>(&request, &raw);
            let _ = decode::<()>(&request, &raw);
            let _ = decode::<rmcp::model::CreateMessageResult>(&request, &raw);
            let _ = decode::<rmcp::model::ListRootsResult>(&request, &raw);
        }
    }

    #[test]
    fn decode_accepts_a_form_only_when_action_is_accept(raw in elicit_result()) {
        let request = &requests()[0];
        if let Ok(answer) = decode::<Value>(request, &raw) {
            let action = raw["action"].as_str().unwrap();
            prop_assert_eq!(answer.is_accept(), action == "accept");
            prop_assert!(action != "other");
        }
    }

    #[test]
    fn limits_never_panic_on_arbitrary_json(values in prop::collection::vec(arbitrary_json(), 0..8)) {
        let responses: BTreeMap<String, Value> =
            values.into_iter().enumerate().map(|(i, v)| (format!("k{i}"), v)).collect();
        let _ = Limits { max_keys: 4, max_depth: 3, max_bytes: 256 }.check(&responses);
        let _ = Limits::default().check(&responses);
    }
}
