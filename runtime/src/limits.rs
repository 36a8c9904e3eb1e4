//! Size and shape limits on incoming `inputResponses`.
//!
//! The values are attacker input that the runtime keeps (answered keys are carried in the next
//! `requestState`) and decodes, so they are bounded before anything else looks at them.

use std::collections::BTreeMap;
use std::io;

use serde_json::Value;

use crate::error::MrtrError;

/// Bounds on what a client may send back in one round.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most keys in `inputResponses`.
    pub max_keys: usize,
    /// Deepest nesting of one response value: a scalar is 0, `{}` or `[]` is 1, `{"a":[]}` 2.
    /// At most 256 takes effect (past serde_json's own 128, so nothing from the wire).
    pub max_depth: usize,
    /// Most bytes of `inputResponses` serialized as compact JSON.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_keys: 64,
            max_depth: 32,
            max_bytes: 1 << 20,
        }
    }
}

impl Limits {
    pub fn check(&self, responses: &BTreeMap<String, Value>) -> Result<(), MrtrError> {
        self.check_keys(responses.len())?;
        match measure(responses, self.max_depth) {
            None => Err(MrtrError::InvalidInputResponses(format!(
                "an inputResponses value is nested deeper than {} levels",
                self.max_depth.min(DEEPEST)
            ))),
            Some(bytes) if bytes > self.max_bytes => Err(MrtrError::InvalidInputResponses(
                format!("inputResponses is larger than {} bytes", self.max_bytes),
            )),
            Some(_) => Ok(()),
        }
    }

    /// [`Limits::check`], unless `raw` (what the pre-scan counted in the body the responses
    /// were decoded from) already proves the depth and size limits hold: then only the key
    /// count is checked, and the walk over every value is skipped.
    pub(crate) fn check_within(
        &self,
        responses: &BTreeMap<String, Value>,
        raw: Option<RawBounds>,
    ) -> Result<(), MrtrError> {
        match raw {
            Some(raw) if self.admit(raw) => self.check_keys(responses.len()),
            _ => self.check(responses),
        }
    }

    /// Whether every `inputResponses` decoded from a body with these bounds passes the depth
    /// and size limits. A value nests no deeper than the brackets opened in the body, and its
    /// compact JSON is at most [`MAX_GROWTH`] times the body's bytes.
    fn admit(&self, raw: RawBounds) -> bool {
        raw.openings <= self.max_depth.min(DEEPEST)
            && raw.bytes.saturating_mul(MAX_GROWTH) <= self.max_bytes
    }

    /// The key limit alone, from a count: the pre-scan counts the keys of `inputResponses`
    /// without decoding them.
    pub(crate) fn check_keys(&self, keys: usize) -> Result<(), MrtrError> {
        if keys > self.max_keys {
            return Err(MrtrError::InvalidInputResponses(format!(
                "{keys} keys in inputResponses; at most {} are accepted",
                self.max_keys
            )));
        }
        Ok(())
    }
}

/// What the pre-scan counts in a raw JSON body (`prescan`, Streamable HTTP): its opening
/// brackets (`{` and `[`, in strings too) and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawBounds {
    pub(crate) openings: usize,
    pub(crate) bytes: usize,
}

/// How much longer than its source text a decoded value can serialize. Strings never grow
/// (`serde_json` writes a character raw unless JSON requires it escaped, and the source had to
/// escape it the same way or longer), nor do integers, literals or structure (whitespace only
/// shrinks). A float can: JSON has no float literal shorter than three characters (`1e9`, `0.5`)
/// and `serde_json` writes any `f64` in at most 24 (`1e9` becomes `1000000000.0`); an integer
/// past `u64`, which becomes a float, has at least twenty digits.
const MAX_GROWTH: usize = 8;

/// The length of `responses` serialized as compact JSON, or `None` if a value is nested deeper
/// than `max_depth`, counted without writing it.
///
/// A recursive walk rather than one with an explicit stack: it runs once a round, cold, and in
/// this regime the code it is made of costs more than its work (an explicit stack's growth and
/// bookkeeping came to three times the code). The recursion is bounded: it stops at
/// `max_depth`, and never follows a value deeper than [`DEEPEST`], whatever the setting.
fn measure(responses: &BTreeMap<String, Value>, max_depth: usize) -> Option<usize> {
    object_len(responses.iter(), responses.len(), max_depth.min(DEEPEST))
}

/// The deepest value `measure` follows (so the deepest a limit can allow): serde_json refuses
/// to parse anything past 128 levels, so no value read from the wire comes near it.
pub(crate) const DEEPEST: usize = 256;

/// One value's length; `None` if it nests deeper than `levels` more levels.
fn value_len(value: &Value, levels: usize) -> Option<usize> {
    match value {
        Value::Null | Value::Bool(true) => Some(4),
        Value::Bool(false) => Some(5),
        Value::Number(number) => Some(number_len(number)),
        Value::String(text) => Some(string_len(text)),
        Value::Array(items) => {
            let inner = levels.checked_sub(1)?;
            items
                .iter()
                .try_fold(container_len(items.len()), |len, item| {
                    Some(len + value_len(item, inner)?)
                })
        }
        Value::Object(entries) => object_len(entries.iter(), entries.len(), levels.checked_sub(1)?),
    }
}

/// An object's length, its `count` entries walked once (each key with its colon, then its
/// value `inner` levels deep at most): one walk of the map's nodes, not one for the keys and
/// another for the values.
fn object_len<'a>(
    mut entries: impl Iterator<Item = (&'a String, &'a Value)>,
    count: usize,
    inner: usize,
) -> Option<usize> {
    entries.try_fold(container_len(count), |len, (key, value)| {
        Some(len + string_len(key) + 1 + value_len(value, inner)?)
    })
}

/// Brackets and the commas between `items` items.
fn container_len(items: usize) -> usize {
    2 + items.saturating_sub(1)
}

/// A JSON string as `serde_json` escapes it: quotes, backslash and the five short escapes take
/// two bytes, other control characters six (`\u001f`), everything else its UTF-8 bytes.
fn string_len(text: &str) -> usize {
    // Nearly every string needs no escape: only a string with one pays for the exact count.
    if !needs_escape(text) {
        return 2 + text.len();
    }
    escaped_len(text)
}

/// Whether JSON writes `text` other than byte for byte between quotes. One pass without an
/// early exit, so the compiler vectorizes it: most strings have no escape to find.
pub(crate) fn needs_escape(text: &str) -> bool {
    text.bytes().fold(false, |seen, byte| {
        seen | (byte < 0x20) | (byte == b'"') | (byte == b'\\')
    })
}

#[cold]
fn escaped_len(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\x08' | b'\x0c' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// Numbers are formatted by `serde_json` itself (integers and shortest floats), into a counter.
/// Out of line: the formatting code is larger than the rest of the walk, and answers are
/// mostly strings and booleans.
#[inline(never)]
fn number_len(number: &serde_json::Number) -> usize {
    let mut counter = ByteCounter(0);
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, number);
    counter.0
}

struct ByteCounter(usize);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::json_shape::JsonShape;

    fn json_value() -> impl Strategy<Value = Value> {
        JsonShape {
            // Every escape class: quotes, backslashes, short escapes, other controls, DEL,
            // non-ASCII.
            text: "[a\"\\\\\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}é€😀]{0,12}",
            keys: "[a\"\n\u{1}é]{0,6}",
            depth: 6,
            nodes: 64,
            items: 6,
        }
        .values()
    }

    /// The nesting the limit is defined by: a scalar 0, `[]` 1, `{"a":[]}` 2.
    fn depth(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
            Value::Object(entries) => 1 + entries.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    proptest! {
        #[test]
        fn the_measured_length_is_what_serde_json_writes(
            responses in prop::collection::btree_map("[a-z\"\t]{1,8}", json_value(), 0..5),
        ) {
            let deepest = responses.values().map(depth).max().unwrap_or(0);
            prop_assert_eq!(
                measure(&responses, usize::MAX),
                Some(serde_json::to_vec(&responses).unwrap().len())
            );
            prop_assert!(measure(&responses, deepest).is_some());
            if deepest > 0 {
                prop_assert_eq!(measure(&responses, deepest - 1), None);
            }
        }

        /// Whatever the bounds of a body admit passes the full check, for responses sent compact
        /// or with whitespace and limits around the body's own size and depth (the float
        /// literals that grow most are the unit test below).
        #[test]
        fn what_the_raw_bounds_admit_passes_the_walk(
            responses in prop::collection::btree_map("[a-z\"\t]{1,8}", json_value(), 0..5),
            pretty in any::<bool>(),
            max_depth in 0usize..10,
            growth in 1usize..10,
        ) {
            let text = if pretty {
                serde_json::to_vec_pretty(&responses).unwrap()
            } else {
                serde_json::to_vec(&responses).unwrap()
            };
            let raw = raw_bounds(&text);
            let limits = Limits { max_keys: usize::MAX, max_depth, max_bytes: raw.bytes * growth };
            if limits.admit(raw) {
                prop_assert!(limits.check(&responses).is_ok());
            }
            prop_assert_eq!(
                limits.check_within(&responses, Some(raw)).is_ok(),
                limits.check(&responses).is_ok() || limits.admit(raw)
            );
        }
    }

    /// What the pre-scan counts, byte by byte.
    fn raw_bounds(text: &[u8]) -> RawBounds {
        RawBounds {
            openings: text
                .iter()
                .filter(|byte| matches!(byte, b'{' | b'['))
                .count(),
            bytes: text.len(),
        }
    }

    /// The growth bound at its tightest: three-character float literals written back at four
    /// times their length, and an integer past `u64` written back as a float.
    #[test]
    fn floats_written_back_longer_stay_within_the_growth_bound() {
        for (literal, written) in [("1e9", "1000000000.0"), ("9e15", "9000000000000000.0")] {
            let responses: BTreeMap<String, Value> =
                serde_json::from_str(&format!(r#"{{"a":[{literal},{literal}]}}"#)).unwrap();
            assert_eq!(
                measure(&responses, DEEPEST),
                Some(r#"{"a":[]}"#.len() + 2 * written.len() + 1)
            );
            let text = format!(r#"{{"a":[{literal},{literal}]}}"#);
            let raw = raw_bounds(text.as_bytes());
            let limits = Limits {
                max_keys: 1,
                max_depth: 2,
                max_bytes: raw.bytes * MAX_GROWTH,
            };
            assert!(limits.admit(raw) && limits.check(&responses).is_ok());
        }
        let huge: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert!(serde_json::to_string(&huge).unwrap().len() <= 20 * MAX_GROWTH);
        // A body that nests deeper than the limit, or is larger than the limit over the
        // growth, is not admitted: the walk decides.
        let limits = Limits::default();
        assert!(!limits.admit(RawBounds {
            openings: 33,
            bytes: 10
        }));
        assert!(!limits.admit(RawBounds {
            openings: 1,
            bytes: (1 << 20) / MAX_GROWTH + 1
        }));
        assert!(limits.admit(RawBounds {
            openings: 32,
            bytes: (1 << 20) / MAX_GROWTH
        }));
    }

    #[test]
    fn limits_are_checked_with_their_own_messages() {
        let limits = Limits {
            max_keys: 2,
            max_depth: 2,
            max_bytes: 40,
        };
        let answers = |entries: Value| -> BTreeMap<String, Value> {
            serde_json::from_value(entries).unwrap()
        };
        assert!(limits.check(&answers(json!({ "a": { "b": [] } }))).is_ok());
        let deep = limits.check(&answers(json!({ "a": { "b": [[]] } })));
        assert!(
            deep.unwrap_err()
                .to_string()
                .contains("nested deeper than 2")
        );
        let large = limits.check(&answers(json!({ "a": "x".repeat(40) })));
        assert!(
            large
                .unwrap_err()
                .to_string()
                .contains("larger than 40 bytes")
        );
        let keys = limits.check(&answers(json!({ "a": 1, "b": 2, "c": 3 })));
        assert!(keys.unwrap_err().to_string().contains("3 keys"));
        // Nesting far past any stack is refused, not followed.
        let mut hostile = json!(null);
        for _ in 0..100_000 {
            hostile = Value::Array(vec![hostile]);
        }
        let hostile = BTreeMap::from([("a".to_owned(), hostile)]);
        assert!(limits.check(&hostile).is_err());
        // Dropping a 100,000-deep value recurses in serde_json; leak it instead.
        std::mem::forget(hostile);
    }
}
