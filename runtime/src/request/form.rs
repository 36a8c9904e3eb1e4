//! A form elicitation in rmcp's model, for the `inputRequests` of an `input_required` result.
//!
//! Converting the form's schema is most of what a round spends on its ask: rmcp decodes each
//! property through an untagged enum, buffering it and trying every variant. A handler asks
//! the same few forms over and over (`elicit::<T>` derives the same schema every time), so
//! each distinct schema is converted once and its model cloned after that.

use std::sync::RwLock;

use rmcp::model::{ElicitRequestParams, ElicitationSchema};
use serde::Deserialize;
use serde_json::Value;

use crate::unpoisoned;

/// Distinct schemas kept. Forms built from data (an enum of this user's projects) would each
/// take a place; once full, new schemas are converted every time instead of evicting any.
const KEPT: usize = 64;

static CONVERTED: RwLock<Vec<(Value, ElicitationSchema)>> = RwLock::new(Vec::new());

/// The params of a form elicitation as `elicit` builds them (`mode`, `message`,
/// `requestedSchema`, nothing else), built field by field: rmcp's `ElicitRequestParams` is
/// tagged by `mode`, so decoding it whole first copies the entire params, schema included,
/// into serde's buffer. `None` for any other shape, which takes that general path.
pub(super) fn params(params: &Value) -> Option<Result<ElicitRequestParams, serde_json::Error>> {
    let object = params.as_object()?;
    let fields_known = object
        .keys()
        .all(|key| matches!(key.as_str(), "mode" | "message" | "requestedSchema"));
    if !fields_known || object.get("mode").and_then(Value::as_str) != Some("form") {
        return None;
    }
    let message = object.get("message")?.as_str()?;
    let schema = object.get("requestedSchema")?;
    Some(converted(schema).map(
        |requested_schema| ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.to_owned(),
            requested_schema,
        },
    ))
}

/// `schema` in rmcp's model: a clone of an earlier conversion of an equal schema, or a new one.
fn converted(schema: &Value) -> Result<ElicitationSchema, serde_json::Error> {
    {
        let kept = unpoisoned::read(&CONVERTED);
        if let Some((_, model)) = kept.iter().find(|(json, _)| json == schema) {
            return Ok(model.clone());
        }
    }
    let model = ElicitationSchema::deserialize(schema)?;
    let mut kept = unpoisoned::write(&CONVERTED);
    if kept.len() < KEPT && !kept.iter().any(|(json, _)| json == schema) {
        kept.push((schema.clone(), model.clone()));
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(field: &str) -> Value {
        json!({ "type": "object", "properties": { field: { "type": "boolean" } },
                "required": [field] })
    }

    fn fresh(schema: &Value) -> Value {
        serde_json::to_value(ElicitationSchema::deserialize(schema).unwrap()).unwrap()
    }

    #[test]
    fn a_kept_schema_converts_to_what_a_fresh_conversion_gives() {
        let confirm = schema("confirm");
        for _ in 0..3 {
            let model = converted(&confirm).unwrap();
            assert_eq!(serde_json::to_value(model).unwrap(), fresh(&confirm));
        }
        // An equal schema built again finds the same entry; a different one gets its own.
        let other = schema("proceed");
        assert_eq!(
            serde_json::to_value(converted(&other).unwrap()).unwrap(),
            fresh(&other)
        );
    }

    #[test]
    fn a_schema_rmcp_refuses_is_an_error_every_time_and_is_not_kept() {
        let bad = json!({ "type": "object", "properties": { "x": { "type": "nonsense" } } });
        assert!(converted(&bad).is_err());
        assert!(converted(&bad).is_err());
        let kept = CONVERTED.read().unwrap();
        assert!(!kept.iter().any(|(json, _)| json == &bad));
    }

    #[test]
    fn past_the_limit_schemas_are_still_converted() {
        for n in 0..KEPT + 8 {
            let schema = schema(&format!("field_{n}"));
            assert_eq!(
                serde_json::to_value(converted(&schema).unwrap()).unwrap(),
                fresh(&schema)
            );
        }
        assert!(CONVERTED.read().unwrap().len() <= KEPT);
    }
}
