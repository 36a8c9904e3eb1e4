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
use std::sync::LazyLock;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

use crate::limits::needs_escape;

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
    let mut out = Canonical(Staged::new());
    out.text_bytes(DOMAIN);
    // Length prefixes keep ("tools/call", "ab") and ("tools/cal", "lab") apart.
    for part in [method.as_bytes(), target.as_bytes()] {
        out.text_bytes(&(part.len() as u64).to_be_bytes());
        out.text_bytes(part);
    }
    // The canonical form goes straight into the hash: every round of every call takes this
    // digest, and a copy of the arguments as text would be built only to be thrown away.
    match arguments {
        Some(arguments) => write_object(arguments, &mut out),
        // An omitted `arguments` and `{}` mean the same call; a client may switch between them.
        None => out.text("{}"),
    }
    BindDigest(out.0.finish())
}

/// Where the canonical form is written: the hash, or (in tests) a string to look at.
struct Canonical<W>(W);

trait Absorb {
    fn absorb(&mut self, bytes: &[u8]);

    fn absorb_byte(&mut self, byte: u8) {
        self.absorb(&[byte]);
    }
}

/// The hash behind a buffer. The canonical form arrives in pieces of a few bytes (a quote, a
/// key, a colon); handing each to `Sha256::update` inlined its block-buffer bookkeeping at every
/// call site, and that code, run once a round, was most of what the digest cost. Here the
/// pieces are copied, and the hash sees a few large slices from one place.
struct Staged {
    hasher: Sha256,
    len: usize,
    buffer: [u8; STAGED],
}

const STAGED: usize = 512;

impl Staged {
    fn new() -> Self {
        Staged {
            hasher: Sha256::new(),
            len: 0,
            buffer: [0; STAGED],
        }
    }

    #[inline(never)]
    fn spill(&mut self, bytes: &[u8]) {
        self.hasher.update(&self.buffer[..self.len]);
        self.len = 0;
        if bytes.len() > STAGED {
            self.hasher.update(bytes);
        } else {
            self.buffer[..bytes.len()].copy_from_slice(bytes);
            self.len = bytes.len();
        }
    }

    fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.buffer[..self.len]);
        self.hasher.finalize().into()
    }
}

impl Absorb for Staged {
    fn absorb(&mut self, bytes: &[u8]) {
        match self.buffer.get_mut(self.len..self.len + bytes.len()) {
            Some(free) => {
                free.copy_from_slice(bytes);
                self.len += bytes.len();
            }
            None => self.spill(bytes),
        }
    }

    fn absorb_byte(&mut self, byte: u8) {
        match self.buffer.get_mut(self.len) {
            Some(free) => {
                *free = byte;
                self.len += 1;
            }
            None => self.spill(&[byte]),
        }
    }
}

#[cfg(test)]
impl Absorb for Vec<u8> {
    fn absorb(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl<W: Absorb> Canonical<W> {
    fn text(&mut self, text: &str) {
        self.0.absorb(text.as_bytes());
    }

    fn text_bytes(&mut self, bytes: &[u8]) {
        self.0.absorb(bytes);
    }

    fn byte(&mut self, byte: u8) {
        self.0.absorb_byte(byte);
    }
}

impl<W: Absorb> std::fmt::Write for Canonical<W> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.text(text);
        Ok(())
    }
}

impl<W: Absorb> std::io::Write for Canonical<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.absorb(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The canonical JSON text of `value`: object keys sorted by their UTF-8 bytes, no whitespace,
/// strings escaped by `serde_json`, numbers as described in `write_number`. The digest writes
/// the arguments straight into the hash; this is how the tests read the form it hashes.
#[cfg(test)]
fn canonical_json(value: &Value) -> String {
    let mut out = Canonical(Vec::new());
    write_value(value, &mut out);
    String::from_utf8(out.0).expect("the canonical form is JSON text")
}

fn write_value<W: Absorb>(value: &Value, out: &mut Canonical<W>) {
    match value {
        Value::Null => out.text("null"),
        Value::Bool(true) => out.text("true"),
        Value::Bool(false) => out.text("false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.byte(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.byte(b',');
                }
                write_value(item, out);
            }
            out.byte(b']');
        }
        Value::Object(object) => write_object(object, out),
    }
}

fn write_object<W: Absorb>(object: &Map<String, Value>, out: &mut Canonical<W>) {
    out.byte(b'{');
    if maps_iterate_sorted() {
        write_entries(object.iter(), out);
    } else {
        write_sorted_copy(object, out);
    }
    out.byte(b'}');
}

/// Whether serde_json's `Map` iterates in key order: it is a `BTreeMap` (sorted by the keys'
/// bytes) unless some crate in the build turns on serde_json's `preserve_order` feature, which
/// makes it insertion-ordered. Every map of the build is one or the other, so one probe answers
/// for all of them, and a sorted map is written as it iterates.
fn maps_iterate_sorted() -> bool {
    static SORTED: LazyLock<bool> = LazyLock::new(|| {
        let probe: Map<String, Value> =
            [("b".to_owned(), Value::Null), ("a".to_owned(), Value::Null)]
                .into_iter()
                .collect();
        probe.keys().next().is_some_and(|first| first == "a")
    });
    *SORTED
}

#[cold]
#[inline(never)]
fn write_sorted_copy<W: Absorb>(object: &Map<String, Value>, out: &mut Canonical<W>) {
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_unstable_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
    write_entries(entries.into_iter(), out);
}

fn write_entries<'a, W: Absorb>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    out: &mut Canonical<W>,
) {
    for (index, (key, value)) in entries.enumerate() {
        if index > 0 {
            out.byte(b',');
        }
        write_string(key, out);
        out.byte(b':');
        write_value(value, out);
    }
}

/// serde_json's escaping, written where it goes. A string without anything to escape (nearly
/// all of them) is its own bytes between quotes, which skips serde_json's byte-by-byte walk.
fn write_string<W: Absorb>(text: &str, out: &mut Canonical<W>) {
    if !needs_escape(text) {
        out.byte(b'"');
        out.text(text);
        out.byte(b'"');
        return;
    }
    // Writing a `str` to an infallible writer cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

/// Integers print in decimal. A float with no fractional part that fits in an `i64` or `u64`
/// prints as that integer, so `2`, `2.0` and `2e0` agree; any other float prints in Rust's
/// shortest round-trip exponent form (`1.5e0`, `1e300`), which bounds its length.
// Out of line: numbers are rare in tool arguments, and its formatting code is large.
#[inline(never)]
fn write_number<W: Absorb>(number: &Number, out: &mut Canonical<W>) {
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
        out.text(&number.to_string());
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

    /// The path a build with serde_json's `preserve_order` takes writes what the sorted one
    /// does (called directly: whichever path this build takes, the test covers the other).
    #[test]
    fn the_sorting_path_writes_the_same_text() {
        let parsed =
            object(serde_json::from_str(r#"{"b": {"d": 1, "c": [2]}, "a": "s"}"#).unwrap());
        let mut out = Canonical(Vec::new());
        out.byte(b'{');
        write_sorted_copy(&parsed, &mut out);
        out.byte(b'}');
        assert_eq!(
            String::from_utf8(out.0).unwrap(),
            canonical_json(&Value::Object(parsed))
        );
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

    /// Tokens in flight survive an upgrade only if the digest of the same request never moves.
    #[test]
    fn the_digest_of_a_request_is_pinned() {
        let args = object(json!({
            "service": "api", "opts": {"n": 3.0, "dry": true, "tags": ["a\u{1}\"", "é"]},
            "big": 18446744073709551615u64, "neg": -7, "half": 0.5, "none": null
        }));
        let digest = bind_digest("tools/call", "deploy", Some(&args)).0;
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(
            hex,
            "1782a0c10cd6a2358171e1160f2a5d701882de6e98fe96bd2ee6e2c297c1e97d"
        );
    }

    /// The buffer in front of the hash changes nothing: pieces that fill it exactly, spill it,
    /// or are larger than it all hash as the plain canonical text does.
    #[test]
    fn the_digest_is_the_hash_of_the_canonical_text_at_every_length() {
        for len in [
            0, 1, 400, 470, 471, 472, 480, 511, 512, 513, 1024, 1500, 5000,
        ] {
            let args = object(json!({"a": "x".repeat(len), "b": ["y".repeat(len / 3), 1]}));
            let mut plain = Sha256::new();
            plain.update(DOMAIN);
            for part in ["tools/call", "deploy"] {
                plain.update((part.len() as u64).to_be_bytes());
                plain.update(part);
            }
            plain.update(canonical_json(&Value::Object(args.clone())));
            let expected: [u8; 32] = plain.finalize().into();
            assert_eq!(
                bind_digest("tools/call", "deploy", Some(&args)).0,
                expected,
                "{len}"
            );
        }
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
