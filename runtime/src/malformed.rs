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

/// The JSON type of a value, as an error message names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JsonKind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl JsonKind {
    pub(crate) fn of(value: &Value) -> Self {
        match value {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Bool => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
        }
    }
}

/// One field of a method's params: its wire name, JSON type, and whether it must be present.
struct Field {
    name: &'static str,
    expected: JsonKind,
    required: bool,
}

const fn field(name: &'static str, expected: JsonKind, required: bool) -> Field {
    Field {
        name,
        expected,
        required,
    }
}

const TOOL_CALL: &[Field] = &[
    field("name", JsonKind::String, true),
    field("arguments", JsonKind::Object, false),
    field("inputResponses", JsonKind::Object, false),
    field("requestState", JsonKind::String, false),
    field("_meta", JsonKind::Object, false),
];

const PROMPT_GET: &[Field] = TOOL_CALL;

const RESOURCE_READ: &[Field] = &[
    field("uri", JsonKind::String, true),
    field("inputResponses", JsonKind::Object, false),
    field("requestState", JsonKind::String, false),
    field("_meta", JsonKind::Object, false),
];

/// Every top-level field name any of the three methods checks: what a scan must record.
pub(crate) const CHECKED_FIELDS: [&str; 6] = [
    "name",
    "uri",
    "arguments",
    "inputResponses",
    "requestState",
    "_meta",
];

/// The methods whose params the toolkit owns (they carry `inputResponses` and `requestState`).
pub(crate) fn is_mrtr_method(method: &str) -> bool {
    fields_of(method).is_some()
}

fn fields_of(method: &str) -> Option<&'static [Field]> {
    match method {
        "tools/call" => Some(TOOL_CALL),
        "prompts/get" => Some(PROMPT_GET),
        "resources/read" => Some(RESOURCE_READ),
        _ => None,
    }
}

/// What the field checks need to know of a request's params, however they were read: parsed
/// into a [`Value`] (rmcp's custom request) or scanned without building anything (the
/// pre-scan).
pub(crate) enum ParamsShape<F: Fn(&str) -> Option<JsonKind>> {
    Absent,
    NotObject(JsonKind),
    /// An object; the function gives the JSON type of a top-level field, `None` when absent.
    Object(F),
}

/// The -32602 naming the first field of `method`'s params with the wrong JSON type (or params
/// that are absent or not an object); `None` when every field has the right type, or for a
/// method the toolkit does not own.
pub(crate) fn wrong_field<F: Fn(&str) -> Option<JsonKind>>(
    method: &str,
    params: ParamsShape<F>,
) -> Option<ErrorData> {
    let fields = fields_of(method)?;
    let kind_of = match params {
        ParamsShape::Absent => return Some(error(method, None, "params are required".into())),
        ParamsShape::NotObject(kind) => {
            return Some(error(
                method,
                None,
                format!("params must be an object, not {}", kind.describe()),
            ));
        }
        ParamsShape::Object(kind_of) => kind_of,
    };
    for field in fields {
        match kind_of(field.name) {
            None if field.required => {
                return Some(error(
                    method,
                    Some(field.name),
                    format!("`{}` is required", field.name),
                ));
            }
            // rmcp reads a null optional field as absent.
            None | Some(JsonKind::Null) if !field.required => {}
            Some(kind) if kind != field.expected => {
                return Some(error(
                    method,
                    Some(field.name),
                    format!(
                        "`{}` must be {}, not {}",
                        field.name,
                        field.expected.describe(),
                        kind.describe()
                    ),
                ));
            }
            _ => {}
        }
    }
    None
}

/// The -32602 for a request of one of the three MRTR methods whose params rmcp could not read,
/// naming the field at fault; `None` for any other method.
pub(crate) fn invalid_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    if !is_mrtr_method(method) {
        return None;
    }
    let shape = match params {
        None => ParamsShape::Absent,
        Some(Value::Object(object)) => {
            ParamsShape::Object(|name: &str| object.get(name).map(JsonKind::of))
        }
        Some(other) => ParamsShape::NotObject(JsonKind::of(other)),
    };
    if let Some(error) = wrong_field(method, shape) {
        return Some(error);
    }
    // Every field has the right JSON type, so what failed is inside one: let rmcp's own model
    // say what (e.g. a prompt argument that is not a string).
    let params = params?;
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

pub(crate) fn error(method: &str, field: Option<&str>, reason: String) -> ErrorData {
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
