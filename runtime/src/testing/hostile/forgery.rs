//! What the hostile suite forges: tampered tokens, changed arguments, malformed answers, and the
//! capabilities a client leaves out.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::model::{InputRequest, InputRequiredResult};
use serde_json::{Value, json};

use crate::testing::client::{Caps, ELICIT, ROOTS, SAMPLE};

/// A key no handler asks for (keys are identifiers, so it cannot collide).
pub(super) const JUNK_KEY: &str = "mrtr hostile junk";

/// The capability (dotted path) an input request needs.
pub(super) fn capability_of(request: &InputRequest) -> &'static str {
    match request {
        InputRequest::Elicitation(elicit) => {
            let params = serde_json::to_value(&elicit.params).unwrap_or(Value::Null);
            if params.get("mode").and_then(Value::as_str) == Some("url") {
                "elicitation.url"
            } else {
                "elicitation.form"
            }
        }
        InputRequest::CreateMessage(_) => "sampling",
        _ => "roots",
    }
}

pub(super) fn needed_capabilities(input_required: &InputRequiredResult) -> Vec<&'static str> {
    let mut needed: Vec<&'static str> = input_required
        .input_requests
        .iter()
        .flatten()
        .map(|(_, request)| capability_of(request))
        .collect();
    needed.sort_unstable();
    needed.dedup();
    needed
}

pub(super) fn without(capability: &str) -> Caps {
    let mut caps = Caps::ALL;
    match capability {
        "elicitation.form" => caps.elicitation_form = false,
        "elicitation.url" => caps.elicitation_url = false,
        "sampling" => caps.sampling = false,
        _ => caps.roots = false,
    }
    caps
}

pub(super) fn method_of(capability: &str) -> &'static str {
    match capability {
        "sampling" => SAMPLE,
        "roots" => ROOTS,
        _ => ELICIT,
    }
}

/// Answers that are not answers of the request's kind.
pub(super) fn malformed_answers(request: &InputRequest) -> Vec<(&'static str, Value)> {
    let mut malformed = vec![
        ("a bare string", json!("not an answer")),
        ("an unknown action", json!({ "action": "no-such-action" })),
    ];
    if let InputRequest::Elicitation(elicit) = request {
        let params = serde_json::to_value(&elicit.params).unwrap_or(Value::Null);
        if params.get("requestedSchema").is_some() {
            malformed.push((
                "form content that is not an object",
                json!({ "action": "accept", "content": "not an object" }),
            ));
        }
    }
    malformed
}

/// The arguments with one value changed: the first field's string extended, number bumped or
/// boolean flipped; otherwise an extra field.
pub(super) fn changed_argument(arguments: &Value) -> Value {
    let mut changed = arguments.clone();
    if let Some(object) = changed.as_object_mut() {
        if let Some((_, value)) = object.iter_mut().next() {
            let replacement = match value {
                Value::String(text) => Some(json!(format!("{text}-other"))),
                Value::Number(number) => Some(json!(number.as_f64().unwrap_or(0.0) + 1.0)),
                Value::Bool(flag) => Some(json!(!*flag)),
                _ => None,
            };
            if let Some(replacement) = replacement {
                *value = replacement;
                return changed;
            }
        }
        object.insert("mrtr_hostile_extra".into(), json!(true));
        return changed;
    }
    json!({ "mrtr_hostile_extra": true })
}

/// The token with one bit flipped in its sealed body (the part after the last dot), at the byte
/// `at(len)` picks.
pub(super) fn flip_body(state: &str, at: fn(usize) -> usize) -> String {
    let Some((header, body)) = state.rsplit_once('.') else {
        return format!("{state}A");
    };
    match URL_SAFE_NO_PAD.decode(body) {
        Ok(mut bytes) if !bytes.is_empty() => {
            let index = at(bytes.len()).min(bytes.len() - 1);
            bytes[index] ^= 0x01;
            format!("{header}.{}", URL_SAFE_NO_PAD.encode(bytes))
        }
        _ => format!("{header}.{body}A"),
    }
}

/// The token under another key id (`x2.<kid>.<body>`: the kid's first character changed).
pub(super) fn other_kid(state: &str) -> String {
    let mut parts: Vec<String> = state.split('.').map(str::to_owned).collect();
    if parts.len() >= 3 {
        let kid = &parts[1];
        let first = if kid.starts_with('z') { 'y' } else { 'z' };
        parts[1] = format!("{first}{}", kid.get(1..).unwrap_or_default());
        parts.join(".")
    } else {
        format!("z{state}")
    }
}

/// The token with its mode prefix swapped (`x2` ⇄ `h2`): AEAD bytes presented as HMAC.
pub(super) fn other_version(state: &str) -> String {
    match state.split_once('.') {
        Some((version, rest)) if version.starts_with('x') => format!("h{}.{rest}", &version[1..]),
        Some((version, rest)) if version.starts_with('h') => format!("x{}.{rest}", &version[1..]),
        Some((_, rest)) => format!("x2.{rest}"),
        None => format!("x2.{state}"),
    }
}
