//! The flows every server runs, and how the load generator answers what a server asks. The
//! answers are chosen by what is asked (the method and the form's fields), never by the key:
//! each SDK names its keys its own way (python-sdk uses the resolver's qualified name).

use std::sync::Arc;

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
pub static FLOWS: [Flow; 3] = [
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

/// The flows one run cycles through: all of [`FLOWS`], or the ones named (`--flow`), which shows
/// which tool a difference between servers comes from.
#[derive(Clone)]
pub struct Mix(Arc<[&'static Flow]>);

impl Mix {
    pub fn all() -> Self {
        Mix(FLOWS.iter().collect())
    }

    /// The flows of the tools `names`, in [`FLOWS`]' order; all of them when `names` is empty.
    pub fn named(names: &[String]) -> Result<Self, String> {
        if names.is_empty() {
            return Ok(Self::all());
        }
        if let Some(unknown) = names
            .iter()
            .find(|name| !FLOWS.iter().any(|flow| flow.tool == name.as_str()))
        {
            let known: Vec<&str> = FLOWS.iter().map(|flow| flow.tool).collect();
            return Err(format!(
                "--flow {unknown}: no such flow (known: {})",
                known.join(", ")
            ));
        }
        Ok(Mix(FLOWS
            .iter()
            .filter(|flow| names.iter().any(|name| name == flow.tool))
            .collect()))
    }

    /// The flow a worker runs on its `turn`.
    pub fn flow(&self, turn: usize) -> &'static Flow {
        self.0[turn % self.0.len()]
    }

    /// The mix as the reports' headers name it.
    pub fn describe(&self) -> String {
        let flows: Vec<String> = self
            .0
            .iter()
            .map(|flow| format!("{} ({} rounds)", flow.tool, flow.rounds))
            .collect();
        let cycle = if flows.len() > 1 { "in turn" } else { "only" };
        format!("{} {cycle}", flows.join(", "))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(mix: &Mix) -> Vec<&'static str> {
        mix.0.iter().map(|flow| flow.tool).collect()
    }

    #[test]
    fn a_mix_is_every_flow_or_the_named_ones_in_their_order() {
        let all = Mix::named(&[]).unwrap();
        assert_eq!(
            tools(&all),
            ["deploy_service", "summarize_incidents", "staged_rollout"]
        );
        let named = |names: &[&str]| {
            Mix::named(
                &names
                    .iter()
                    .map(|name| name.to_string())
                    .collect::<Vec<_>>(),
            )
        };
        let two = named(&["staged_rollout", "deploy_service"]).unwrap();
        assert_eq!(tools(&two), ["deploy_service", "staged_rollout"]);
        assert_eq!(two.flow(5).tool, "staged_rollout");
        assert_eq!(
            named(&["summarize_incidents"]).unwrap().describe(),
            "summarize_incidents (2 rounds) only"
        );
        assert_eq!(
            all.describe(),
            "deploy_service (2 rounds), summarize_incidents (2 rounds), staged_rollout (5 rounds) in turn"
        );
        let unknown = named(&["deploy"]).err().unwrap();
        assert!(unknown.contains("no such flow"), "{unknown}");
    }
}
