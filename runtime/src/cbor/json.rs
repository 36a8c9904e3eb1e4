//! JSON values as CBOR (RFC 8949), written and read by hand: the pending asks' params and the
//! answers a continuation holds.
//!
//! Every round of a suspended flow opens one token and seals the next, and those values (a
//! form's whole schema, a sampling request) are most of a token. Through serde, each one took
//! ciborium's visitor layers and a zeroed scratch buffer per value, about a sixth of what the
//! runtime spends on a round; a JSON value has six shapes, so a direct walk does the same in a
//! few branches per node.
//!
//! The bytes are what ciborium writes for the same value (definite lengths, text keys), except
//! that a float is never narrowed to half precision; tokens written by either read the same.
//! Reading is strict: indefinite lengths, tags, non-text keys, duplicate keys, non-finite
//! floats, integers JSON cannot hold, nesting past [`MAX_DEPTH`] and truncation are errors.

use serde_json::{Map, Number, Value};

use super::{
    ARRAY, DOUBLE, FALSE, HALF, MAP, NEGATIVE, NULL, SIMPLE, SINGLE, TEXT, TRUE, UNSIGNED,
    argument, array, half_to_f64, head, length, take, write_float, write_text,
};

/// As deep as `serde_json` parses by default: no value that reached a handler is deeper.
pub(crate) const MAX_DEPTH: usize = 128;

/// Appends `value`.
pub(crate) fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_text(out, text),
        Value::Array(items) => {
            head(out, ARRAY, items.len() as u64);
            for item in items {
                write(out, item);
            }
        }
        Value::Object(entries) => {
            head(out, MAP, entries.len() as u64);
            for (key, item) in entries {
                write_text(out, key);
                write(out, item);
            }
        }
    }
}

fn write_number(out: &mut Vec<u8>, number: &Number) {
    if let Some(unsigned) = number.as_u64() {
        head(out, UNSIGNED, unsigned);
    } else if let Some(signed) = number.as_i64() {
        // Major type 1 holds -1 - n.
        head(out, NEGATIVE, !(signed as u64));
    } else {
        write_float(out, number.as_f64().unwrap_or(f64::NAN));
    }
}

/// Reads one value from the front of `input`, leaving the rest.
pub(crate) fn read(input: &mut &[u8]) -> Result<Value, String> {
    read_at(input, 0)
}

fn read_at(input: &mut &[u8], depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let initial = take(input, 1)?[0];
    let (major, minor) = (initial >> 5, initial & 0x1f);
    if major == SIMPLE {
        return read_simple(input, initial);
    }
    let arg = argument(input, minor)?;
    match major {
        UNSIGNED => Ok(Value::from(arg)),
        NEGATIVE => i64::try_from(arg)
            .map(|n| Value::from(-1 - n))
            .map_err(|_| "a negative integer below i64::MIN".to_owned()),
        TEXT => Ok(Value::String(text(input, arg)?)),
        ARRAY => {
            let len = length(input, arg)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(read_at(input, depth + 1)?);
            }
            Ok(Value::Array(items))
        }
        MAP => {
            let len = length(input, arg)?;
            let mut entries = Map::new();
            for _ in 0..len {
                let key_head = take(input, 1)?[0];
                if key_head >> 5 != TEXT {
                    return Err("a map key that is not text".into());
                }
                let key_len = argument(input, key_head & 0x1f)?;
                let key = text(input, key_len)?;
                let item = read_at(input, depth + 1)?;
                if entries.insert(key, item).is_some() {
                    return Err("a duplicate map key".into());
                }
            }
            Ok(Value::Object(entries))
        }
        _ => Err(format!("major type {major} is not JSON")),
    }
}

/// Steps over one value at the front of `input`, making every check [`read`] makes and building
/// nothing: where a sealed value ends, and whether bytes written some other way (through serde)
/// read back as JSON at all.
pub(crate) fn skip(input: &mut &[u8]) -> Result<(), String> {
    skip_at(input, 0)
}

fn skip_at(input: &mut &[u8], depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let initial = take(input, 1)?[0];
    let (major, minor) = (initial >> 5, initial & 0x1f);
    if major == SIMPLE {
        return read_simple(input, initial).map(drop);
    }
    let arg = argument(input, minor)?;
    match major {
        UNSIGNED => Ok(()),
        NEGATIVE => i64::try_from(arg)
            .map(drop)
            .map_err(|_| "a negative integer below i64::MIN".to_owned()),
        TEXT => text_slice(input, arg).map(drop),
        ARRAY => (0..length(input, arg)?).try_for_each(|_| skip_at(input, depth + 1)),
        MAP => {
            let mut keys = DistinctKeys::default();
            for _ in 0..length(input, arg)? {
                let key_head = take(input, 1)?[0];
                if key_head >> 5 != TEXT {
                    return Err("a map key that is not text".into());
                }
                let key_len = argument(input, key_head & 0x1f)?;
                keys.insert(text_slice(input, key_len)?)?;
                skip_at(input, depth + 1)?;
            }
            Ok(())
        }
        _ => Err(format!("major type {major} is not JSON")),
    }
}

/// The keys of one map seen so far, to refuse a duplicate without building the map: a handful
/// on the stack, as every map a sealed request holds has, and a sorted list past them.
#[derive(Default)]
struct DistinctKeys<'a> {
    near: [&'a str; 8],
    count: usize,
    more: Vec<&'a str>,
}

impl<'a> DistinctKeys<'a> {
    fn insert(&mut self, key: &'a str) -> Result<(), String> {
        let duplicate = || "a duplicate map key".to_owned();
        let seen = self.count.min(self.near.len());
        if self.near[..seen].contains(&key) {
            return Err(duplicate());
        }
        if self.count < self.near.len() {
            self.near[self.count] = key;
        } else {
            let at = self.more.binary_search(&key).err().ok_or_else(duplicate)?;
            self.more.insert(at, key);
        }
        self.count += 1;
        Ok(())
    }
}

fn read_simple(input: &mut &[u8], initial: u8) -> Result<Value, String> {
    let float = match initial {
        FALSE => return Ok(Value::Bool(false)),
        TRUE => return Ok(Value::Bool(true)),
        NULL => return Ok(Value::Null),
        HALF => half_to_f64(u16::from_be_bytes(array(input)?)),
        SINGLE => f64::from(f32::from_be_bytes(array(input)?)),
        DOUBLE => f64::from_be_bytes(array(input)?),
        other => return Err(format!("simple value {other:#04x} is not JSON")),
    };
    Number::from_f64(float)
        .map(Value::Number)
        .ok_or_else(|| "a float JSON cannot hold (NaN or infinite)".to_owned())
}

fn text(input: &mut &[u8], len: u64) -> Result<String, String> {
    text_slice(input, len).map(str::to_owned)
}

fn text_slice<'a>(input: &mut &'a [u8], len: u64) -> Result<&'a str, String> {
    let len = usize::try_from(len).map_err(|_| "a text longer than memory")?;
    let bytes = take(input, len)?;
    std::str::from_utf8(bytes).map_err(|_| "text that is not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::json_shape::JsonShape;

    fn encoded(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, value);
        out
    }

    fn decoded(mut bytes: &[u8]) -> Result<Value, String> {
        let value = read(&mut bytes)?;
        assert!(bytes.is_empty(), "bytes left after the value");
        Ok(value)
    }

    fn via_ciborium(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::into_writer(value, &mut out).unwrap();
        out
    }

    fn json_value() -> impl Strategy<Value = Value> {
        JsonShape {
            text: ".{0,40}",
            keys: ".{0,12}",
            depth: 4,
            nodes: 64,
            items: 8,
        }
        .values()
    }

    proptest! {
        #[test]
        fn a_value_comes_back_as_it_went(value in json_value()) {
            prop_assert_eq!(decoded(&encoded(&value)).unwrap(), value);
        }

        /// Tokens sealed before this codec (by ciborium) open unchanged, and ciborium reads
        /// what this one writes.
        #[test]
        fn ciborium_and_this_codec_read_each_other(value in json_value()) {
            prop_assert_eq!(decoded(&via_ciborium(&value)).unwrap(), value.clone());
            let back: Value = ciborium::from_reader(encoded(&value).as_slice()).unwrap();
            prop_assert_eq!(back, value);
        }

        #[test]
        fn every_truncation_is_an_error(value in json_value()) {
            let bytes = encoded(&value);
            for end in 0..bytes.len() {
                prop_assert!(decoded(&bytes[..end]).is_err());
            }
        }

        #[test]
        fn skip_steps_over_exactly_the_value(value in json_value()) {
            let bytes = [encoded(&value), vec![0xf6]].concat();
            let mut input = bytes.as_slice();
            skip(&mut input).unwrap();
            prop_assert_eq!(input, &[0xf6][..]);
        }

        /// Where a sealed request is only stepped over, it is read in full later: the two must
        /// refuse the same bytes and stop at the same place.
        #[test]
        fn skip_refuses_what_read_refuses(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let (mut read_input, mut skip_input) = (bytes.as_slice(), bytes.as_slice());
            let read_ok = read(&mut read_input).is_ok();
            prop_assert_eq!(read_ok, skip(&mut skip_input).is_ok());
            if read_ok {
                prop_assert_eq!(read_input.len(), skip_input.len());
            }
        }

        #[test]
        fn arbitrary_bytes_are_an_error_or_a_value_never_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let mut input = bytes.as_slice();
            let _ = read(&mut input);
        }
    }

    #[test]
    fn integers_take_the_shortest_head_as_ciborium_writes_them() {
        for value in [
            json!(0),
            json!(23),
            json!(24),
            json!(255),
            json!(256),
            json!(65_536),
            json!(u64::MAX),
            json!(-1),
            json!(-25),
            json!(i64::MIN),
            json!("a text past twenty-three bytes long"),
            json!({ "requestedSchema": { "type": "object", "required": ["a"] } }),
        ] {
            assert_eq!(encoded(&value), via_ciborium(&value), "{value}");
        }
    }

    #[test]
    fn half_precision_floats_from_older_tokens_are_read() {
        // 1.5, -0.0 and 65504 (the largest half) as ciborium narrows them.
        for (bytes, expected) in [
            (vec![HALF, 0x3e, 0x00], 1.5),
            (vec![HALF, 0x80, 0x00], -0.0),
            (vec![HALF, 0x7b, 0xff], 65504.0),
            (vec![HALF, 0x00, 0x01], 2f64.powi(-24)),
        ] {
            assert_eq!(decoded(&bytes).unwrap(), json!(expected));
        }
    }

    #[test]
    fn what_json_cannot_hold_is_refused() {
        let refused: [(&[u8], &str); 9] = [
            (&[HALF, 0x7c, 0x00], "NaN or infinite"),
            (&[DOUBLE, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0], "NaN or infinite"),
            (&[0x3b, 0x80, 0, 0, 0, 0, 0, 0, 0], "below i64::MIN"),
            (&[0x42, 1, 2], "major type 2"),
            (&[0x9f, 0xff], "indefinite"),
            (&[0xc1, 0x00], "major type 6"),
            (&[0xa1, 0x01, 0xf6], "not text"),
            (&[0xa2, 0x61, b'a', 0xf6, 0x61, b'a', 0xf6], "duplicate"),
            (&[0x62, 0xff, 0xfe], "UTF-8"),
        ];
        for (bytes, reason) in refused {
            let error = decoded(bytes).unwrap_err();
            assert!(error.contains(reason), "{bytes:02x?}: {error}");
            let skipped = skip(&mut &bytes[..]).unwrap_err();
            assert!(skipped.contains(reason), "skip {bytes:02x?}: {skipped}");
        }
        let huge_count = [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert!(decoded(&huge_count).unwrap_err().contains("truncated"));
    }

    #[test]
    fn skip_finds_a_duplicate_key_past_the_ones_it_keeps_on_the_stack() {
        let map = |keys: &[&str]| {
            let object: Map<String, Value> = keys
                .iter()
                .map(|key| (key.to_string(), Value::Null))
                .collect();
            encoded(&Value::Object(object))
        };
        let keys: Vec<String> = (0..12).map(|n| format!("k{n:02}")).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let distinct = map(&keys);
        assert!(skip(&mut distinct.as_slice()).is_ok());
        // The same bytes with the eleventh key spelled as the fourth (and the ninth as the
        // tenth): a `Map` cannot hold either duplicate, so they are written by hand.
        for (from, to) in [("k10", "k03"), ("k08", "k09")] {
            let at = distinct
                .windows(3)
                .position(|window| window == from.as_bytes())
                .unwrap();
            let mut twice = distinct.clone();
            twice[at..at + 3].copy_from_slice(to.as_bytes());
            assert!(
                skip(&mut twice.as_slice())
                    .unwrap_err()
                    .contains("duplicate")
            );
            assert!(decoded(&twice).unwrap_err().contains("duplicate"));
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_without_exhausting_the_stack() {
        let deep = [vec![0x81; MAX_DEPTH + 1], vec![0xf6]].concat();
        assert!(decoded(&deep).unwrap_err().contains("deeper"));
        let at_limit = [vec![0x81; MAX_DEPTH], vec![0xf6]].concat();
        assert!(decoded(&at_limit).is_ok());
        let very_deep = vec![0x81; 1_000_000];
        assert!(decoded(&very_deep).is_err());
        assert!(skip(&mut deep.as_slice()).unwrap_err().contains("deeper"));
        assert!(skip(&mut at_limit.as_slice()).is_ok());
        assert!(skip(&mut very_deep.as_slice()).is_err());
    }
}
