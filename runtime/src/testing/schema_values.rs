//! Form content generated from an elicitation's `requestedSchema` (what `#[derive(Elicit)]`
//! emits: a flat object of strings, numbers, booleans, single- and multi-selects), always
//! inside the schema: required fields present, bounds, lengths, formats and choices respected.
//!
//! One `seed` gives one content; seed 0 is the simplest (first choices, lower bounds, optional
//! fields left out), so a shrinking search ends on plain values.

use serde_json::{Map, Value, json};

use super::client::{ELICIT, Received, Reply, SAMPLE};

/// A small deterministic generator (splitmix64): reproducible content from a seed.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (0 when `bound` is 0); always 0 for seed 0.
    fn below(&mut self, seed: u64, bound: u64) -> u64 {
        if seed == 0 || bound == 0 {
            0
        } else {
            self.next() % bound
        }
    }
}

/// Content that fits `schema` (an elicitation's `requestedSchema`), chosen by `seed`.
pub fn content_for(schema: &Value, seed: u64) -> Value {
    let mut draw = Draw(seed);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut content = Map::new();
    for (name, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let wanted = required.contains(&name.as_str()) || draw.below(seed, 2) == 1;
        if wanted {
            content.insert(name.clone(), property_value(property, seed, &mut draw));
        }
    }
    Value::Object(content)
}

fn property_value(property: &Value, seed: u64, draw: &mut Draw) -> Value {
    let number = |name: &str| property.get(name).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("boolean") => Value::Bool(draw.below(seed, 2) == 1),
        Some(kind @ ("integer" | "number")) => {
            let low = number("minimum").unwrap_or(0.0).ceil();
            let high = number("maximum").unwrap_or(low + 100.0).floor().max(low);
            let picked = low + draw.below(seed, (high - low) as u64 + 1) as f64;
            if kind == "integer" {
                json!(picked as i64)
            } else {
                json!(picked)
            }
        }
        Some("array") => {
            let choices = choices(property.get("items").unwrap_or(&Value::Null));
            let count = |name: &str| property.get(name).and_then(Value::as_u64);
            let low = count("minItems").unwrap_or(0).min(choices.len() as u64);
            let high = count("maxItems")
                .unwrap_or(choices.len() as u64)
                .clamp(low, choices.len() as u64);
            let wanted = low + draw.below(seed, high - low + 1);
            let start = draw.below(seed, choices.len() as u64 + 1) as usize;
            let picked = choices
                .iter()
                .cycle()
                .skip(start)
                .take(wanted as usize)
                .map(|choice| Value::String(choice.clone()));
            Value::Array(picked.collect())
        }
        _ => Value::String(string_value(property, seed, draw)),
    }
}

fn string_value(property: &Value, seed: u64, draw: &mut Draw) -> String {
    let offered = choices(property);
    if !offered.is_empty() {
        let index = draw.below(seed, offered.len() as u64) as usize;
        return offered[index].clone();
    }
    let n = draw.below(seed, 1000);
    match property.get("format").and_then(Value::as_str) {
        Some("email") => return format!("user{n}@example.com"),
        Some("uri") => return format!("https://example.com/{n}"),
        Some("date") => return format!("2026-01-{:02}", n % 28 + 1),
        Some("date-time") => return format!("2026-01-{:02}T12:00:00Z", n % 28 + 1),
        _ => {}
    }
    let length = |name: &str| property.get(name).and_then(Value::as_u64);
    let min = length("minLength").unwrap_or(0) as usize;
    let max = length("maxLength").map_or(usize::MAX, |max| max as usize);
    let mut text = format!("v{n}");
    while text.chars().count() < min {
        text.push('a');
    }
    text.chars().take(max).collect()
}

/// The offered values of a single-select (`enum`, `oneOf: [{const}]`) or of a multi-select's
/// `items` (`enum`, `anyOf: [{const}]`); empty for free text.
fn choices(schema: &Value) -> Vec<String> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|option| option.get("const").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// An answer that fits `request`, chosen by `seed`: form content generated from its
/// `requestedSchema`, a bare accept for a URL elicitation, an assistant text for sampling, one
/// `file://` root for roots. `ScriptedClient::new(Caps::ALL).otherwise(|r| generated_reply(r, 0))`
/// answers anything a handler asks.
pub fn generated_reply(request: &Received, seed: u64) -> Reply {
    match request.method {
        ELICIT => match request.params.get("requestedSchema") {
            Some(schema) => Reply::Accept(content_for(schema, seed)),
            None => Reply::AcceptEmpty,
        },
        SAMPLE => Reply::Text(format!("generated summary {seed}")),
        _ => Reply::Roots(vec![format!("file:///tmp/mrtr-testing/{seed}")]),
    }
}
