//! The bind digest: which request a continuation belongs to.
//!
//! The spec asks servers to bind `requestState` to "an identifier of the originating request,
//! e.g. the method name plus a digest of its key params" (2026-07-28, MRTR S5c). Without it a
//! client could present state minted for `delete_records` while calling `deploy_service`.
//!
//! The client re-sends the arguments on every retry, possibly re-serialised by another JSON
//! library, so the digest is taken over a canonical form: object keys sorted, no whitespace, and
//! every number printed one way.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// SHA-256 over the method, the target (tool name, prompt name or resource URI) and the
/// canonical JSON of the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindDigest(pub [u8; 32]);

/// Versioned so a future change of the canonical form cannot collide with this one.
const DOMAIN: &[u8] = b"mrtr/bind/v1";

pub fn bind_digest(
    method: &str,
    target: &str,
    arguments: Option<&Map<String, Value>>,
) -> BindDigest {
    let mut arguments_json = String::new();
    match arguments {
        Some(arguments) => write_object(arguments, &mut arguments_json),
        // An omitted `arguments` and `{}` mean the same call; a client may switch between them.
        None => arguments_json.push_str("{}"),
    }
    let mut hasher = Sha256::new();
    hasher.update(DOMAIN);
    // Length prefixes keep ("tools/call", "ab") and ("tools/cal", "lab") apart.
    for part in [method.as_bytes(), target.as_bytes()] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    hasher.update(arguments_json.as_bytes());
    BindDigest(hasher.finalize().into())
}

/// The canonical JSON text of `value`: object keys sorted by their UTF-8 bytes, no whitespace,
/// strings escaped by `serde_json`, numbers as described in `write_number`. The digest writes
/// the arguments straight into its buffer; this is how the tests read the form it hashes.
#[cfg(test)]
fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(object) => write_object(object, out),
    }
}

fn write_object(object: &Map<String, Value>, out: &mut String) {
    // `Map` keeps insertion order when serde_json's `preserve_order` feature is on anywhere in
    // the build, so the order is imposed here rather than trusted.
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_unstable_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
    out.push('{');
    for (index, (key, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        write_value(value, out);
    }
    out.push('}');
}

fn write_string(text: &str, out: &mut String) {
    // Serialising a `&str` cannot fail.
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

/// Integers print in decimal. A float with no fractional part that fits in an `i64` or `u64`
/// prints as that integer, so `2`, `2.0` and `2e0` agree; any other float prints in Rust's
/// shortest round-trip exponent form (`1.5e0`, `1e300`), which bounds its length.
fn write_number(number: &Number, out: &mut String) {
    if let Some(integer) = number.as_i64() {
        let _ = write!(out, "{integer}");
    } else if let Some(integer) = number.as_u64() {
        let _ = write!(out, "{integer}");
    } else if let Some(float) = number.as_f64() {
        // 2^63 and 2^64 as f64: inside these bounds an integral float converts exactly.
        const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;
        const U64_LIMIT: f64 = 18_446_744_073_709_551_616.0;
        if float.fract() == 0.0 && float.abs() < I64_LIMIT {
            let _ = write!(out, "{}", float as i64);
        } else if float.fract() == 0.0 && float > 0.0 && float < U64_LIMIT {
            let _ = write!(out, "{}", float as u64);
        } else {
            let _ = write!(out, "{float:e}");
        }
    } else {
        // Only reachable with serde_json's `arbitrary_precision`: keep the text as given.
        out.push_str(&number.to_string());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            _ => unreachable!("test input is an object"),
        }
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_drops_whitespace() {
        let parsed: Value =
            serde_json::from_str(r#"{ "b": [ {"y":1, "x":2} ], "a" : "s" }"#).unwrap();
        assert_eq!(canonical_json(&parsed), r#"{"a":"s","b":[{"x":2,"y":1}]}"#);
    }

    #[test]
    fn integral_floats_print_like_integers() {
        let parsed: Value = serde_json::from_str(r#"[2, 2.0, 2e0, -0.0, 1.5, 1e300]"#).unwrap();
        assert_eq!(canonical_json(&parsed), "[2,2,2,0,1.5e0,1e300]");
    }

    #[test]
    fn strings_are_escaped_one_way() {
        let parsed: Value = serde_json::from_str(r#"["\u0041\n\"", "é"]"#).unwrap();
        assert_eq!(canonical_json(&parsed), "[\"A\\n\\\"\",\"é\"]");
    }

    #[test]
    fn key_order_and_whitespace_do_not_change_the_digest() {
        let a =
            object(serde_json::from_str(r#"{"service":"api","opts":{"dry":true,"n":3}}"#).unwrap());
        let b = object(
            serde_json::from_str(
                "{ \"opts\" : { \"n\" : 3.0 , \"dry\" : true } ,\n \"service\" : \"api\" }",
            )
            .unwrap(),
        );
        assert_eq!(
            bind_digest("tools/call", "deploy", Some(&a)),
            bind_digest("tools/call", "deploy", Some(&b))
        );
    }

    #[test]
    fn missing_arguments_bind_like_an_empty_object() {
        let empty = Map::new();
        assert_eq!(
            bind_digest("tools/call", "t", None),
            bind_digest("tools/call", "t", Some(&empty))
        );
    }

    #[test]
    fn method_target_and_arguments_each_change_the_digest() {
        let args = object(json!({"service": "api"}));
        let other = object(json!({"service": "db"}));
        let base = bind_digest("tools/call", "deploy", Some(&args));
        assert_ne!(base, bind_digest("prompts/get", "deploy", Some(&args)));
        assert_ne!(base, bind_digest("tools/call", "delete", Some(&args)));
        assert_ne!(base, bind_digest("tools/call", "deploy", Some(&other)));
        // The boundary between method and target is not ambiguous.
        assert_ne!(bind_digest("ab", "c", None), bind_digest("a", "bc", None));
    }
}
