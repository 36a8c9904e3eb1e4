//! Why the params of a `tools/call`, `prompts/get` or `resources/read` did not parse.
//!
//! rmcp reads a request whose params do not fit its model as a *custom* request and answers it
//! with -32601 "method not found" (HTTP 404 on Streamable HTTP): a client that sent
//! `inputResponses` as an array is told that `tools/call` does not exist. The method exists; its
//! params are invalid, which JSON-RPC spells -32602. This module finds the field at fault so
//! the error can name it.
//!
//! An explicit `null` on an optional field is read by rmcp as an absent field, so it never gets
//! here: a `null` `inputResponses` is a round without answers, asked again.

use rmcp::ErrorData;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::answer::kind;

/// The JSON type a field must have.
#[derive(Clone, Copy)]
enum Expected {
    String,
    Object,
}

impl Expected {
    fn fits(self, value: &Value) -> bool {
        match self {
            Expected::String => value.is_string(),
            Expected::Object => value.is_object(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Expected::String => "a string",
            Expected::Object => "an object",
        }
    }
}

/// One field of a method's params: its wire name, type, and whether it must be present.
struct Field {
    name: &'static str,
    expected: Expected,
    required: bool,
}

const fn field(name: &'static str, expected: Expected, required: bool) -> Field {
    Field {
        name,
        expected,
        required,
    }
}

const TOOL_CALL: &[Field] = &[
    field("name", Expected::String, true),
    field("arguments", Expected::Object, false),
    field("inputResponses", Expected::Object, false),
    field("requestState", Expected::String, false),
    field("_meta", Expected::Object, false),
];

const PROMPT_GET: &[Field] = TOOL_CALL;

const RESOURCE_READ: &[Field] = &[
    field("uri", Expected::String, true),
    field("inputResponses", Expected::Object, false),
    field("requestState", Expected::String, false),
    field("_meta", Expected::Object, false),
];

/// The -32602 for a request of one of [`MRTR_METHODS`] whose params rmcp could not read, naming
/// the field at fault; `None` for any other method.
pub(crate) fn invalid_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    let fields = match method {
        "tools/call" => TOOL_CALL,
        "prompts/get" => PROMPT_GET,
        "resources/read" => RESOURCE_READ,
        _ => return None,
    };
    let Some(params) = params else {
        return Some(error(method, None, "params are required".into()));
    };
    let Some(object) = params.as_object() else {
        return Some(error(
            method,
            None,
            format!("params must be an object, not {}", kind(params)),
        ));
    };
    for field in fields {
        match object.get(field.name) {
            None if field.required => {
                return Some(error(
                    method,
                    Some(field.name),
                    format!("`{}` is required", field.name),
                ));
            }
            // rmcp reads a null optional field as absent.
            None | Some(Value::Null) if !field.required => {}
            Some(value) if !field.expected.fits(value) => {
                return Some(error(
                    method,
                    Some(field.name),
                    format!(
                        "`{}` must be {}, not {}",
                        field.name,
                        field.expected.describe(),
                        kind(value)
                    ),
                ));
            }
            _ => {}
        }
    }
    // Every field has the right JSON type, so what failed is inside one: let rmcp's own model
    // say what (e.g. a prompt argument that is not a string).
    let reason = match method {
        "tools/call" => parse_error::<rmcp::model::CallToolRequestParams>(params),
        "prompts/get" => parse_error::<rmcp::model::GetPromptRequestParams>(params),
        _ => parse_error::<rmcp::model::ReadResourceRequestParams>(params),
    };
    Some(error(
        method,
        None,
        reason.unwrap_or_else(|| "params do not fit the method".into()),
    ))
}

fn parse_error<T: DeserializeOwned>(params: &Value) -> Option<String> {
    T::deserialize(params)
        .err()
        .map(|e| bounded(&e.to_string()))
}

fn error(method: &str, field: Option<&str>, reason: String) -> ErrorData {
    let data = match field {
        Some(field) => json!({ "method": method, "field": field }),
        None => json!({ "method": method }),
    };
    ErrorData::invalid_params(format!("Invalid params for {method}: {reason}"), Some(data))
}

/// serde quotes the offending value in its message; a hostile client must not choose how long
/// the error it gets back (or the log line) is.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(160) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(method: &str, params: Value) -> String {
        invalid_params(method, Some(&params))
            .expect("an MRTR method")
            .message
            .to_string()
    }

    #[test]
    fn other_methods_are_left_to_rmcp() {
        assert!(invalid_params("tools/list", Some(&json!([]))).is_none());
        assert!(invalid_params("x/custom", None).is_none());
    }

    #[test]
    fn params_that_are_absent_or_not_an_object_are_named() {
        let missing = invalid_params("tools/call", None).expect("an MRTR method");
        assert_eq!(missing.code.0, -32602);
        assert!(missing.message.contains("params are required"));
        assert!(
            message("resources/read", json!([1]))
                .contains("params must be an object, not an array")
        );
    }

    #[test]
    fn params_refused_for_a_reason_no_field_shows_still_get_invalid_params() {
        // Every field fits; whatever made rmcp refuse, the answer stays -32602, never -32601.
        let text = message(
            "prompts/get",
            json!({"name": "p", "requestState": "s", "_meta": {}}),
        );
        assert!(text.starts_with("Invalid params for prompts/get"), "{text}");
    }

    #[test]
    fn a_quoted_value_in_the_reason_is_bounded() {
        let long = "x".repeat(10_000);
        assert!(bounded(&long).chars().count() <= 161);
    }
}
