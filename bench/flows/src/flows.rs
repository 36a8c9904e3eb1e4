//! The flows every server runs, and how the load generator answers what a server asks. The
//! answers are chosen by what is asked (the method and the form's fields), never by the key:
//! each SDK names its keys its own way (python-sdk uses the resolver's qualified name).

use serde_json::{Value, json};

/// One complete tool call: its arguments, how many rounds it takes when every question is
/// answered, and how its final text starts.
#[derive(Clone, Copy, Debug)]
pub struct Flow {
    pub tool: &'static str,
    pub arguments: fn() -> Value,
    pub rounds: usize,
    pub result_starts_with: &'static str,
}

/// The mix each connection cycles through: two two-round flows and the five-round loop.
pub const FLOWS: [Flow; 3] = [
    Flow {
        tool: "deploy_service",
        arguments: || json!({ "service": "checkout-api" }),
        rounds: 2,
        result_starts_with: "Deployed checkout-api to production",
    },
    Flow {
        tool: "summarize_incidents",
        arguments: || json!({ "since": "2026-11-01" }),
        rounds: 2,
        result_starts_with: SUMMARY,
    },
    Flow {
        tool: "staged_rollout",
        arguments: || json!({ "service": "checkout-api" }),
        rounds: 5,
        result_starts_with: "Rolled checkout-api out in 4 waves",
    },
];

/// What the pretend model answers every sampling request with.
pub const SUMMARY: &str = "- Card authorisations failing on checkout-api";

/// The capabilities the load generator declares: forms and sampling.
pub fn client_capabilities() -> Value {
    json!({ "elicitation": { "form": {} }, "sampling": {} })
}

/// The answer to one asked request (`{method, params}`), or why it cannot be answered.
pub fn answer(request: &Value) -> Result<Value, String> {
    match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => {
            let fields = &request["params"]["requestedSchema"]["properties"];
            let content = if fields.get("environment").is_some() {
                json!({ "environment": "production" })
            } else if fields.get("proceed").is_some() {
                json!({ "proceed": true })
            } else {
                return Err(format!("a form this benchmark does not know: {fields}"));
            };
            Ok(json!({ "action": "accept", "content": content }))
        }
        Some("sampling/createMessage") => Ok(json!({
            "role": "assistant",
            "content": { "type": "text", "text": SUMMARY },
            "model": "flows-bench",
            "stopReason": "endTurn",
        })),
        other => Err(format!("an ask this benchmark does not answer: {other:?}")),
    }
}

/// The text of a complete `tools/call` result, if it is one and not a tool error.
pub fn result_text(result: &Value) -> Option<&str> {
    if result.get("isError") == Some(&Value::Bool(true)) {
        return None;
    }
    result["content"]
        .as_array()?
        .iter()
        .find_map(|block| block.get("text").and_then(Value::as_str))
}
