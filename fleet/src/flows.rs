//! The three multi-round flows of the examples, as a 2026-07-28 client sends them: each flow's
//! arguments, and the answers its client gives to the server's `inputRequests`.

use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Deploy,
    Summarize,
    ReleaseNotes,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Deploy, Kind::Summarize, Kind::ReleaseNotes];

    pub fn tool(self) -> &'static str {
        match self {
            Kind::Deploy => "deploy_service",
            Kind::Summarize => "summarize_incidents",
            Kind::ReleaseNotes => "release_notes",
        }
    }

    /// Arguments naming the flow uniquely where the tool's effect line shows them
    /// (`deploy <service> ..`, `publish_notes <version> ..`), so effects are counted per flow.
    pub fn arguments(self, flow_id: &str) -> Value {
        match self {
            Kind::Deploy => json!({ "service": format!("svc-{flow_id}") }),
            Kind::Summarize => json!({ "since": "2026-11-01" }),
            Kind::ReleaseNotes => json!({ "version": format!("v-{flow_id}") }),
        }
    }

    /// What the flow's effect line starts with, for the effect log.
    pub fn effect_prefix(self, flow_id: &str) -> Option<String> {
        match self {
            Kind::Deploy => Some(format!("deploy svc-{flow_id} ")),
            Kind::ReleaseNotes => Some(format!("publish_notes v-{flow_id} ")),
            Kind::Summarize => None,
        }
    }

    /// What the completed result's text starts with.
    pub fn expected_text(self, flow_id: &str) -> String {
        match self {
            Kind::Deploy => format!("Deployed svc-{flow_id} to "),
            Kind::Summarize => "- checkout-api".to_owned(),
            Kind::ReleaseNotes => format!("Published release notes for v-{flow_id} ("),
        }
    }
}

/// The answer a scripted user gives to one input request, by its method.
pub fn answer(request: &Value) -> Value {
    match request.get("method").and_then(Value::as_str) {
        Some("sampling/createMessage") => json!({
            "role": "assistant",
            "content": { "type": "text", "text": "- checkout-api: card authorisations failing\n- retries added" },
            "model": "fleet-model",
            "stopReason": "endTurn",
        }),
        // Every elicitation of the three flows has one enum field; the first choice is valid.
        _ => {
            let schema = request.pointer("/params/requestedSchema/properties");
            let content = schema
                .and_then(Value::as_object)
                .map(|fields| {
                    fields
                        .iter()
                        .map(|(name, field)| {
                            let choice = field
                                .pointer("/enum/0")
                                .or_else(|| field.pointer("/oneOf/0/const"))
                                .cloned()
                                .unwrap_or(Value::Null);
                            (name.clone(), choice)
                        })
                        .collect::<serde_json::Map<_, _>>()
                })
                .unwrap_or_default();
            json!({ "action": "accept", "content": content })
        }
    }
}

/// The `tools/call` of one round.
pub fn call(
    id: u64,
    kind: Kind,
    arguments: &Value,
    responses: Option<&Value>,
    state: Option<&str>,
) -> Value {
    let mut params = json!({
        "name": kind.tool(),
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} }, "sampling": {} },
        },
    });
    if let Some(responses) = responses {
        params["inputResponses"] = responses.clone();
    }
    if let Some(state) = state {
        params["requestState"] = Value::String(state.to_owned());
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}
