//! The serde codec against ciborium, the codec carried locals used before it: every serde shape
//! a carried local can take comes back as it went, reads the same through either codec, and is
//! written byte for byte as ciborium writes it (floats aside, which it narrows further).

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{from_slice, to_vec};
use crate::json_shape::JsonShape;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Sample {
    Unit,
    Flag(bool),
    Small(i8, u8, i16, u16),
    Wide { signed: i64, unsigned: u64 },
    Huge(i128, u128),
    Double(f64),
    Single(f32),
    Letter(char),
    Text(String),
    Bytes(#[serde(with = "as_bytes")] Vec<u8>),
    Maybe(Option<Box<Sample>>),
    List(Vec<Sample>),
    Keyed(BTreeMap<u32, Sample>),
    Named(BTreeMap<String, Sample>),
    Pair((String, Box<Sample>)),
    Record(Record),
    Json(Value),
    Untagged(Either),
    Internal(Tagged),
    Wrapped(Wrapper),
    Empty(Empty),
    Flattened(Flat),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Record {
    id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    items: Vec<Sample>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Either {
    Number(u64),
    Words(Vec<String>),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Tagged {
    Low { x: i32 },
    High { y: String },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wrapper(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Empty;

/// Written as a map of unknown length: ciborium's indefinite map.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Flat {
    first: u8,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

/// A byte string, where a `Vec<u8>` alone would be an array of numbers.
mod as_bytes {
    use super::*;

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                Ok(bytes.to_vec())
            }
            fn visit_byte_buf<E>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(bytes)
            }
        }
        deserializer.deserialize_byte_buf(Bytes)
    }
}

impl Sample {
    fn has_float(&self) -> bool {
        match self {
            Sample::Double(_) | Sample::Single(_) => true,
            Sample::Json(value) => value.to_string().contains(['.', 'e']),
            Sample::Maybe(Some(inner)) | Sample::Pair((_, inner)) => inner.has_float(),
            Sample::List(items) | Sample::Record(Record { items, .. }) => {
                items.iter().any(Sample::has_float)
            }
            Sample::Keyed(entries) => entries.values().any(Sample::has_float),
            Sample::Named(entries) => entries.values().any(Sample::has_float),
            _ => false,
        }
    }
}

fn sample() -> impl Strategy<Value = Sample> {
    let leaf = prop_oneof![
        Just(Sample::Unit),
        any::<bool>().prop_map(Sample::Flag),
        any::<(i8, u8, i16, u16)>().prop_map(|(a, b, c, d)| Sample::Small(a, b, c, d)),
        any::<(i64, u64)>().prop_map(|(signed, unsigned)| Sample::Wide { signed, unsigned }),
        any::<(i128, u128)>().prop_map(|(a, b)| Sample::Huge(a, b)),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
            .prop_map(Sample::Double),
        any::<f32>()
            .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
            .prop_map(Sample::Single),
        any::<char>().prop_map(Sample::Letter),
        ".{0,40}".prop_map(Sample::Text),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Sample::Bytes),
        any::<u64>().prop_map(|n| Sample::Untagged(Either::Number(n))),
        prop::collection::vec(".{0,8}", 0..4).prop_map(|w| Sample::Untagged(Either::Words(w))),
        any::<i32>().prop_map(|x| Sample::Internal(Tagged::Low { x })),
        ".{0,8}".prop_map(|y| Sample::Internal(Tagged::High { y })),
        ".{0,8}".prop_map(|text| Sample::Wrapped(Wrapper(text))),
        Just(Sample::Empty(Empty)),
        (
            any::<u8>(),
            prop::collection::btree_map("k.{0,6}", any::<u8>(), 0..4)
        )
            .prop_map(|(first, rest)| Sample::Flattened(Flat { first, rest })),
        JsonShape {
            text: ".{0,12}",
            keys: ".{0,6}",
            depth: 3,
            nodes: 16,
            items: 4,
        }
        .values()
        .prop_map(Sample::Json),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::option::of(inner.clone().prop_map(Box::new)).prop_map(Sample::Maybe),
            prop::collection::vec(inner.clone(), 0..5).prop_map(Sample::List),
            prop::collection::btree_map(any::<u32>(), inner.clone(), 0..4).prop_map(Sample::Keyed),
            prop::collection::btree_map(".{0,6}", inner.clone(), 0..4).prop_map(Sample::Named),
            (".{0,6}", inner.clone().prop_map(Box::new)).prop_map(Sample::Pair),
            (
                any::<u64>(),
                prop::option::of(".{0,8}"),
                prop::collection::vec(inner, 0..4)
            )
                .prop_map(|(id, note, items)| Sample::Record(Record {
                    id,
                    note,
                    items
                })),
        ]
    })
}

fn encoded<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    to_vec(value, &mut out).expect("encodes");
    out
}

/// Decodes one item and checks that it was all there was.
fn decoded<T: serde::de::DeserializeOwned>(mut bytes: &[u8]) -> Result<T, String> {
    let value = from_slice(&mut bytes).map_err(|e| e.0)?;
    if !bytes.is_empty() {
        return Err(format!("{} bytes left after the value", bytes.len()));
    }
    Ok(value)
}

fn via_ciborium<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::into_writer(value, &mut out).expect("ciborium encodes");
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_value_comes_back_as_it_went(value in sample()) {
        prop_assert_eq!(decoded::<Sample>(&encoded(&value)).unwrap(), value);
    }

    /// Tokens sealed by a build that carried through ciborium open in this one, and an
    /// instance still on that build opens what this one seals.
    #[test]
    fn ciborium_and_this_codec_read_each_other(value in sample()) {
        prop_assert_eq!(decoded::<Sample>(&via_ciborium(&value)).unwrap(), value.clone());
        let back: Sample = ciborium::from_reader(encoded(&value).as_slice()).unwrap();
        prop_assert_eq!(back, value);
    }

    #[test]
    fn without_floats_the_bytes_are_ciborium_s(value in sample()) {
        if !value.has_float() {
            prop_assert_eq!(encoded(&value), via_ciborium(&value));
        }
    }

    #[test]
    fn every_truncation_is_an_error(value in sample()) {
        let bytes = encoded(&value);
        for end in 0..bytes.len() {
            prop_assert!(decoded::<Sample>(&bytes[..end]).is_err(), "read from {} of {} bytes", end, bytes.len());
        }
    }

    #[test]
    fn arbitrary_bytes_are_an_error_or_a_value_never_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        let _ = decoded::<Sample>(&bytes);
        let _ = decoded::<Value>(&bytes);
        let _ = decoded::<(u8, String, Option<Vec<i64>>)>(&bytes);
    }
}

#[test]
fn values_in_a_row_are_read_one_at_a_time() {
    let mut bytes = encoded(&"plan_01");
    to_vec(&vec![1u8, 2], &mut bytes).unwrap();
    to_vec(&Some(7i64), &mut bytes).unwrap();
    let mut input = bytes.as_slice();
    assert_eq!(from_slice::<String>(&mut input).unwrap(), "plan_01");
    assert_eq!(from_slice::<Vec<u8>>(&mut input).unwrap(), [1, 2]);
    assert_eq!(from_slice::<Option<i64>>(&mut input).unwrap(), Some(7));
    assert!(input.is_empty());
}

#[test]
fn integers_at_every_width_boundary_are_read_as_written() {
    let edges: [i128; 12] = [
        0,
        23,
        24,
        255,
        256,
        -1,
        -24,
        -25,
        i64::MIN as i128,
        -(1i128 << 64),
        -(1i128 << 64) - 1,
        i128::MIN,
    ];
    for value in edges {
        assert_eq!(encoded(&value), via_ciborium(&value), "{value}");
        assert_eq!(decoded::<i128>(&encoded(&value)).unwrap(), value);
    }
    for value in [u64::MAX as u128, 1u128 << 64, u128::MAX] {
        assert_eq!(encoded(&value), via_ciborium(&value), "{value}");
        assert_eq!(decoded::<u128>(&encoded(&value)).unwrap(), value);
    }
    assert!(decoded::<u8>(&encoded(&256u16)).is_err());
    assert!(decoded::<u64>(&encoded(&-1i8)).is_err());
}

#[test]
fn floats_take_the_narrowest_exact_width_of_single_or_double() {
    assert_eq!(encoded(&1.5f64), [0xfa, 0x3f, 0xc0, 0, 0]);
    assert_eq!(encoded(&0.1f64)[0], 0xfb);
    assert_eq!(decoded::<f64>(&encoded(&0.1f64)).unwrap(), 0.1);
    assert_eq!(decoded::<f32>(&encoded(&0.1f32)).unwrap(), 0.1f32);
    // What ciborium wrote: 1.5 in half precision.
    assert_eq!(decoded::<f64>(&[0xf9, 0x3e, 0x00]).unwrap(), 1.5);
    assert!(decoded::<f64>(&encoded(&f64::NAN)).unwrap().is_nan());
}

#[test]
fn what_ciborium_writes_for_unknown_lengths_is_read() {
    // An indefinite array and map, each closed by a break.
    assert_eq!(
        decoded::<Vec<u8>>(&[0x9f, 0x01, 0x02, 0xff]).unwrap(),
        [1, 2]
    );
    let map: BTreeMap<String, u8> = decoded(&[0xbf, 0x61, b'a', 0x01, 0xff]).unwrap();
    assert_eq!(map, BTreeMap::from([("a".to_owned(), 1)]));
    // `undefined` reads as none, as ciborium reads it.
    assert_eq!(decoded::<Option<u8>>(&[0xf7]).unwrap(), None);
}

#[test]
fn what_serde_never_wrote_is_refused_in_words() {
    let refused: [(&[u8], &str); 9] = [
        (&[0x7f, 0x61, b'a', 0xff], "chunks"),
        (&[0xc1, 0x00], "tag 1"),
        (&[0xc2, 0x01, 0x00], "not a byte string"),
        (
            &[
                0xc2, 0x51, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ],
            "past 128 bits",
        ),
        (&[0xf0], "simple value"),
        (&[0x62, 0xff, 0xfe], "UTF-8"),
        (&[0x83, 0x01, 0x02, 0x03], "left unread"),
        (&[0xa2, 0x61, b'a', 0xf6, 0x61, b'b', 0xf6], "one entry"),
        (
            &[0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            "truncated",
        ),
    ];
    for (bytes, reason) in refused {
        let error = match reason {
            "left unread" => decoded::<(u8, u8)>(bytes).unwrap_err(),
            "one entry" => decoded::<Sample>(bytes).unwrap_err(),
            "tag 1" | "not a byte string" | "past 128 bits" => decoded::<u128>(bytes).unwrap_err(),
            _ => decoded::<Value>(bytes).unwrap_err(),
        };
        assert!(error.contains(reason), "{bytes:02x?}: {error}");
    }
    let below_i128_min = [[0xc3, 0x50, 0x80].as_slice(), &[0; 15]].concat();
    assert!(
        decoded::<i128>(&below_i128_min)
            .unwrap_err()
            .contains("below i128::MIN")
    );
    assert!(
        decoded::<Sample>(&[0x01])
            .unwrap_err()
            .contains("enum variant")
    );
    assert!(decoded::<()>(&[0x01]).unwrap_err().contains("null"));
    assert!(
        decoded::<Sample>(&encoded(&"Flag"))
            .unwrap_err()
            .contains("name alone")
    );
}

#[test]
fn nesting_past_the_limit_is_refused_without_exhausting_the_stack() {
    let deep = [vec![0x81; super::de::MAX_DEPTH + 1], vec![0xf6]].concat();
    assert!(decoded::<Value>(&deep).unwrap_err().contains("deeper"));
    let very_deep = vec![0x81; 1_000_000];
    assert!(decoded::<Value>(&very_deep).is_err());
    assert!(decoded::<probe::Skipped>(&very_deep).is_err());
}

mod probe {
    /// Skipping an item walks it as deep as reading does, under the same limit.
    #[derive(Debug)]
    pub(super) struct Skipped;

    impl<'de> serde::Deserialize<'de> for Skipped {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            serde::de::IgnoredAny::deserialize(deserializer).map(|_| Skipped)
        }
    }
}
