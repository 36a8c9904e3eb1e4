#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! The capability predicates and the gate's `requiredCapabilities` (2026-07-28 spec, basic `_meta`: per-request client capabilities).

use crate::capability::{ClientCaps, gate};
use crate::request::InputRequest;
use crate::{MrtrError, elicit_url, elicit_with_schema, roots, sample};
use serde_json::{Value, json};

fn caps(declared: Value) -> ClientCaps {
    ClientCaps::from_value(declared)
}

fn form() -> InputRequest {
    elicit_with_schema::<Value>("m", json!({ "type": "object", "properties": {} })).into_request()
}

fn url() -> InputRequest {
    elicit_url("m", "https://example.com").into_request()
}

fn sampling(extra: Value) -> InputRequest {
    let mut params = json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
        "maxTokens": 10
    });
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    sample(serde_json::from_value(params).unwrap()).into_request()
}

/// The same ask three ways: as `sample` builds it (typed params), as a resumed continuation
/// opens it (its params sealed, undecoded) and as a round that asks again decodes them (JSON
/// params). The gate must read all three alike.
fn sampling_both_ways(extra: Value) -> [InputRequest; 3] {
    let built = sampling(extra);
    let resumed = built.resealed();
    let mut decoded = resumed.clone();
    decoded.unseal().unwrap();
    [built, resumed, decoded]
}

fn required(declared: Value, requests: &[InputRequest]) -> Value {
    match gate(&caps(declared), requests) {
        Err(MrtrError::MissingCapability(required)) => required,
        other => panic!("expected MissingCapability, got {other:?}"),
    }
}

#[test]
fn empty_elicitation_object_declares_form_only() {
    let c = caps(json!({ "elicitation": {} }));
    assert!(c.elicitation_form());
    assert!(!c.elicitation_url());
}

#[test]
fn elicitation_modes_are_read_from_form_and_url() {
    let url_only = caps(json!({ "elicitation": { "url": {} } }));
    assert!(!url_only.elicitation_form());
    assert!(url_only.elicitation_url());
    let both = caps(json!({ "elicitation": { "form": {}, "url": {} } }));
    assert!(both.elicitation_form() && both.elicitation_url());
    let form_only = caps(json!({ "elicitation": { "form": { "schemaValidation": true } } }));
    assert!(form_only.elicitation_form() && !form_only.elicitation_url());
}

#[test]
fn nothing_declared_allows_nothing() {
    for c in [
        caps(json!({})),
        caps(json!(null)),
        caps(json!("everything")),
        ClientCaps::from_rmcp(None),
    ] {
        assert!(!c.elicitation_form());
        assert!(!c.elicitation_url());
        assert!(!c.sampling());
        assert!(!c.sampling_tools());
        assert!(!c.roots());
    }
}

#[test]
fn sampling_and_its_tools_are_separate_capabilities() {
    let plain = caps(json!({ "sampling": {} }));
    assert!(plain.sampling() && !plain.sampling_tools() && !plain.sampling_context());
    let tools = caps(json!({ "sampling": { "tools": {}, "context": {} } }));
    assert!(tools.sampling() && tools.sampling_tools() && tools.sampling_context());
}

#[test]
fn legacy_roots_with_list_changed_counts_as_roots() {
    assert!(caps(json!({ "roots": { "listChanged": true } })).roots());
    assert!(caps(json!({ "roots": {} })).roots());
    assert!(!caps(json!({ "roots": null })).roots());
}

#[test]
fn capabilities_from_rmcp_keep_what_the_client_declared() {
    let declared: rmcp::model::ClientCapabilities = serde_json::from_value(json!({
        "sampling": {}, "elicitation": {}, "roots": { "listChanged": true }
    }))
    .unwrap();
    let c = ClientCaps::from_rmcp(Some(&declared));
    assert!(c.sampling() && c.elicitation_form() && c.roots());
    assert!(!c.elicitation_url() && !c.sampling_tools());
}

#[test]
fn declared_asks_pass_the_gate() {
    let all = caps(
        json!({ "elicitation": { "form": {}, "url": {} }, "sampling": { "tools": {} }, "roots": {} }),
    );
    let asks = [
        form(),
        url(),
        sampling(json!({ "tools": [], "toolChoice": { "mode": "auto" } })),
        roots().into_request(),
    ];
    assert!(gate(&all, &asks).is_ok());
    assert!(gate(&caps(json!({})), &[]).is_ok());
}

#[test]
fn form_elicitation_without_elicitation_requires_elicitation() {
    assert_eq!(
        required(json!({ "sampling": {} }), &[form()]),
        json!({ "elicitation": {} })
    );
}

#[test]
fn form_elicitation_with_url_only_requires_form() {
    assert_eq!(
        required(json!({ "elicitation": { "url": {} } }), &[form()]),
        json!({ "elicitation": { "form": {} } })
    );
}

#[test]
fn url_elicitation_requires_elicitation_url() {
    assert_eq!(
        required(json!({ "elicitation": {} }), &[url()]),
        json!({ "elicitation": { "url": {} } })
    );
    assert_eq!(
        required(json!({}), &[url()]),
        json!({ "elicitation": { "url": {} } })
    );
}

#[test]
fn sampling_requires_sampling() {
    assert_eq!(
        required(json!({ "elicitation": {} }), &[sampling(json!({}))]),
        json!({ "sampling": {} })
    );
}

#[test]
fn sampling_with_tools_requires_sampling_tools() {
    for with_tools in sampling_both_ways(json!({ "tools": [] })) {
        assert_eq!(
            required(json!({ "sampling": {} }), std::slice::from_ref(&with_tools)),
            json!({ "sampling": { "tools": {} } })
        );
        assert_eq!(
            required(json!({}), &[with_tools]),
            json!({ "sampling": { "tools": {} } })
        );
    }
    for with_choice in sampling_both_ways(json!({ "toolChoice": { "mode": "none" } })) {
        assert_eq!(
            required(json!({ "sampling": {} }), &[with_choice]),
            json!({ "sampling": { "tools": {} } })
        );
    }
    for plain in sampling_both_ways(json!({})) {
        assert!(gate(&caps(json!({ "sampling": {} })), &[plain]).is_ok());
    }
}

#[test]
fn sampling_with_server_context_requires_sampling_context() {
    for this_server in sampling_both_ways(json!({ "includeContext": "thisServer" })) {
        assert_eq!(
            required(json!({ "sampling": {} }), &[this_server]),
            json!({ "sampling": { "context": {} } })
        );
    }
    for none in sampling_both_ways(json!({ "includeContext": "none" })) {
        assert!(gate(&caps(json!({ "sampling": {} })), &[none]).is_ok());
    }
}

#[test]
fn roots_requires_roots() {
    assert_eq!(
        required(json!({ "sampling": {} }), &[roots().into_request()]),
        json!({ "roots": {} })
    );
}

#[test]
fn every_failing_ask_is_named_in_one_error() {
    let asks = [
        form(),
        url(),
        sampling(json!({ "tools": [] })),
        roots().into_request(),
    ];
    assert_eq!(
        required(json!({}), &asks),
        json!({ "elicitation": { "form": {}, "url": {} }, "sampling": { "tools": {} }, "roots": {} })
    );
    // Only what is missing is named: the declared sampling and form stay out.
    assert_eq!(
        required(
            json!({ "sampling": {}, "elicitation": {} }),
            &[form(), url(), sampling(json!({}))]
        ),
        json!({ "elicitation": { "url": {} } })
    );
}

#[test]
fn the_gate_error_is_json_rpc_minus_32021_with_required_capabilities() {
    let error: rmcp::ErrorData = gate(&caps(json!({})), &[sampling(json!({}))])
        .unwrap_err()
        .into();
    assert_eq!(error.code.0, -32021);
    assert_eq!(
        error.data,
        Some(json!({ "requiredCapabilities": { "sampling": {} } }))
    );
}

/// The predicates read rmcp's typed model directly; they must answer what they answer for the
/// JSON that model serializes to, which is what a handler sees in `declared()`.
#[test]
fn typed_capabilities_answer_like_their_json() {
    let declarations = [
        json!({}),
        json!({ "elicitation": {} }),
        json!({ "elicitation": { "form": {} } }),
        json!({ "elicitation": { "url": {} } }),
        json!({ "elicitation": { "form": { "schemaValidation": true }, "url": {} } }),
        json!({ "sampling": {} }),
        json!({ "sampling": { "tools": {} } }),
        json!({ "sampling": { "context": {}, "tools": {} } }),
        json!({ "roots": { "listChanged": true } }),
        json!({ "roots": {}, "experimental": { "x": {} }, "elicitation": { "form": null } }),
    ];
    let predicates = |c: &ClientCaps| {
        [
            c.elicitation_form(),
            c.elicitation_url(),
            c.sampling(),
            c.sampling_tools(),
            c.sampling_context(),
            c.roots(),
        ]
    };
    for declared in declarations {
        let typed: rmcp::model::ClientCapabilities =
            serde_json::from_value(declared.clone()).unwrap();
        let from_typed = ClientCaps::from_rmcp(Some(&typed));
        let from_json = caps(serde_json::to_value(&typed).unwrap());
        assert_eq!(
            predicates(&from_typed),
            predicates(&from_json),
            "{declared}"
        );
        assert_eq!(from_typed.declared(), from_json.declared(), "{declared}");
        // The gate's error names the same missing capabilities either way.
        let asks = [
            form(),
            url(),
            roots().into_request(),
            sampling(json!({ "tools": [] })),
        ];
        assert_eq!(
            gate(&from_typed, &asks).err().map(|e| format!("{e:?}")),
            gate(&from_json, &asks).err().map(|e| format!("{e:?}")),
            "{declared}"
        );
    }
}
