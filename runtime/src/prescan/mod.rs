//! The pre-scan: MRTR params checked on the raw message, in front of rmcp's decoder.
//!
//! rmcp decodes every incoming message into its model before any server code runs, and two
//! shapes of a `tools/call`, `prompts/get` or `resources/read` fail that decoding outright: a
//! `_meta` that is not an object and params that are not an object. rmcp then answers a
//! request it could not read, so without its id (stdio: -32600 with `"id": null`; Streamable
//! HTTP: 415 with a text body), and no `ServerHandler` wrapper ever sees it. Decoding is also
//! where a 100,000-key `inputResponses` costs its memory, long before the key limit is checked.
//!
//! [`Prescan`] reads the raw bytes of one message once more, building nothing: the envelope's
//! `method`, `id` and `params` are borrowed slices, and the params are walked with visitors that
//! record each checked field's JSON type and count the keys of `inputResponses` while skipping
//! every value ([`serde::de::IgnoredAny`]). A request it refuses is answered with -32602 under
//! the request's own id, with the same field-naming message [`crate::StrictParams`] gives; every
//! other message goes on to rmcp byte for byte. Anything the scan cannot read (not JSON, not a
//! request, an id rmcp would not accept, a batch) is passed on too: rmcp's answer to it stays
//! rmcp's.
//!
//! The transports: [`stdio`] filters lines between the real stdin/stdout and rmcp's transport;
//! `PrescanLayer` (feature `http`) does the same for the POST bodies of Streamable HTTP.

use std::borrow::Cow;
use std::fmt;

use rmcp::ErrorData;
use rmcp::model::{RequestId, ServerJsonRpcMessage};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::limits::Limits;
#[cfg(feature = "http")]
use crate::limits::RawBounds;
use crate::malformed::{self, CHECKED_FIELDS, JsonKind, ParamsShape};

#[cfg(feature = "http")]
mod http;
mod stdio;

#[cfg(feature = "http")]
pub(crate) use http::ScannedBody;
#[cfg(feature = "http")]
pub use http::{PrescanFuture, PrescanLayer, PrescanService, PrescannedBody};
pub use stdio::{StdioFilter, stdio};

/// Checks the MRTR params of raw JSON-RPC messages before rmcp decodes them.
#[derive(Clone, Debug, Default)]
pub struct Prescan {
    limits: Limits,
}

impl Prescan {
    /// A pre-scan enforcing `limits.max_keys` on `inputResponses` (use the runtime's:
    /// [`crate::Runtime::limits`]).
    pub fn new(limits: Limits) -> Self {
        Self { limits }
    }

    /// The JSON-RPC error response (serialized) that answers `message`, or `None` when the
    /// message goes on to rmcp unchanged.
    pub fn refusal(&self, message: &[u8]) -> Option<Vec<u8>> {
        let (id, error) = self.verdict(message)?;
        tracing::debug!(target: "mrtr", message = %error.message, "request refused by the pre-scan");
        serde_json::to_vec(&ServerJsonRpcMessage::error(error, Some(id))).ok()
    }

    /// Whether rmcp may read `message` before the pre-scan does, the scan then running only on
    /// a message rmcp could not decode (Streamable HTTP, where rmcp's verdict can be waited
    /// for): `Some` with what the pass over it counted, which also bounds the `inputResponses`
    /// decoded from it ([`crate::limits::RawBounds`]). Two things rule it out. More colons than
    /// `max_keys`: every key of every object is followed by one, so with fewer
    /// `inputResponses` cannot go over the limit, and decoding costs rmcp no more than the
    /// bytes. And a `null`: rmcp reads `"params": null` as params left out and answers its
    /// own, vaguer -32602 about `_meta`.
    #[cfg(feature = "http")]
    pub(crate) fn rmcp_may_read_first(&self, message: &[u8]) -> Option<RawBounds> {
        survey(message)
            .filter(|survey| survey.colons <= self.limits.max_keys)
            .map(|survey| RawBounds {
                openings: survey.openings,
                bytes: message.len(),
            })
    }

    fn verdict(&self, message: &[u8]) -> Option<(RequestId, ErrorData)> {
        let envelope: Envelope<'_> = serde_json::from_slice(message).ok()?;
        let method = envelope.method?;
        if !malformed::is_mrtr_method(&method) || envelope.jsonrpc.as_deref() != Some("2.0") {
            return None;
        }
        let id = request_id(envelope.id?)?;
        let scanned = envelope.params;
        let shape = match &scanned {
            None => ParamsShape::Absent,
            Some(ScannedParams::NotObject(kind)) => ParamsShape::NotObject(*kind),
            Some(ScannedParams::Object { kinds, .. }) => ParamsShape::Object(|name: &str| {
                CHECKED_FIELDS
                    .iter()
                    .position(|checked| *checked == name)
                    .and_then(|index| kinds[index])
            }),
        };
        if let Some(error) = malformed::wrong_field(&method, shape) {
            return Some((id, error));
        }
        if let Some(ScannedParams::Object {
            input_response_keys: Some(keys),
            ..
        }) = scanned
            && let Err(error) = self.limits.check_keys(keys)
        {
            return Some((id, error.into()));
        }
        None
    }
}

/// The top level of a JSON-RPC message, every member borrowed from the input.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    /// `Some` whenever the member is there, `null` included, so `"params": null` is reported as
    /// params that are not an object rather than as params that are missing. Scanned where it
    /// stands, whatever the method turns out to be: skipping params costs the same walk over
    /// their bytes, and scanning them later would walk them twice.
    #[serde(default, deserialize_with = "present")]
    params: Option<ScannedParams>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// The request's id as rmcp reads it (a string, or an integer, also written `1.0` or `1e2`);
/// `None` for an id rmcp refuses, whose request is then rmcp's to answer. The id is decoded only
/// once it is known to be a string or a number, so a hostile id costs no more than its bytes.
fn request_id(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    let first = text.bytes().next()?;
    if first != b'"' && first != b'-' && !first.is_ascii_digit() {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// What the checks need of the params, read without building them.
enum ScannedParams {
    NotObject(JsonKind),
    Object {
        /// The JSON type of each of [`CHECKED_FIELDS`] present (the last one, if repeated).
        kinds: [Option<JsonKind>; CHECKED_FIELDS.len()],
        /// How many keys `inputResponses` has, when it is an object.
        input_response_keys: Option<usize>,
    },
}

impl<'de> Deserialize<'de> for ScannedParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = ScannedParams;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON-RPC params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kinds = [None; CHECKED_FIELDS.len()];
        let mut input_response_keys = None;
        while let Some(field) = map.next_key_seed(FieldSeed)? {
            match field {
                Some(index) => {
                    let counts_keys = CHECKED_FIELDS[index] == "inputResponses";
                    let (kind, keys) = map.next_value_seed(KindSeed { counts_keys })?;
                    kinds[index] = Some(kind);
                    if counts_keys {
                        input_response_keys = keys;
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(ScannedParams::Object {
            kinds,
            input_response_keys,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        KindVisitor { counts_keys: false }
            .visit_seq(seq)
            .map(|(kind, _)| ScannedParams::NotObject(kind))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::Null))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::Bool))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::Number))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::Number))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::Number))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(ScannedParams::NotObject(JsonKind::String))
    }
}

/// A key of the params object: the index of the checked field it names, or `None`. Compared
/// where serde_json hands it over, so no key is ever copied.
struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(CHECKED_FIELDS.iter().position(|checked| *checked == key))
    }
}

/// A field's value, reduced to its JSON type (and its key count, when asked for and it is an
/// object); everything inside is skipped.
#[derive(Clone, Copy)]
struct KindSeed {
    counts_keys: bool,
}

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = (JsonKind, Option<usize>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(KindVisitor {
            counts_keys: self.counts_keys,
        })
    }
}

struct KindVisitor {
    counts_keys: bool,
}

impl<'de> Visitor<'de> for KindVisitor {
    type Value = (JsonKind, Option<usize>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = 0usize;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<IgnoredAny>()?;
            keys += 1;
        }
        Ok((JsonKind::Object, self.counts_keys.then_some(keys)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok((JsonKind::Array, None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((JsonKind::Null, None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok((JsonKind::Bool, None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok((JsonKind::Number, None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok((JsonKind::Number, None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok((JsonKind::Number, None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok((JsonKind::String, None))
    }
}

/// What one pass over a message counts: its colons and its opening brackets (`{` and `[`,
/// inside strings too, so both only ever over-count).
#[cfg(feature = "http")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Survey {
    colons: usize,
    openings: usize,
}

/// The colons and opening brackets of `message`, or `None` if it contains `null` anywhere.
///
/// Blocks of 240 positions, each compared whole with no early exit, so that the compiler turns
/// the comparisons into vector instructions (16 bytes at a time on any x86-64): a third of the
/// time of the word-at-a-time pass this replaced, with no search library's code. A block's
/// counts are summed once per block, so blocks as long as a byte can count (rather than 64)
/// save an eighth of the pass. A position starts a `null` when the four views of the block
/// shifted by 0 to 3 bytes hold `n`, `u`, `l`, `l` there; the last three bytes cannot start one
/// and are only counted.
#[cfg(feature = "http")]
fn survey(message: &[u8]) -> Option<Survey> {
    const BLOCK: usize = 240;
    let starts = message.len().saturating_sub(3);
    let mut counted = Survey {
        colons: 0,
        openings: 0,
    };
    let mut null = false;
    let mut at = 0;
    while at < starts {
        let end = (at + BLOCK).min(starts);
        // Equal lengths, so the indexing below needs no bounds checks and vectorizes.
        let view = |shift: usize| &message[at + shift..end + shift];
        let (first, second, third, fourth) = (view(0), view(1), view(2), view(3));
        // At most 240 each, so a byte holds the block's counts.
        let (mut colons, mut openings) = (0u8, 0u8);
        let mut block_null = false;
        for i in 0..first.len() {
            colons += u8::from(first[i] == b':');
            openings += u8::from((first[i] == b'{') | (first[i] == b'['));
            block_null |=
                (first[i] == b'n') & (second[i] == b'u') & (third[i] == b'l') & (fourth[i] == b'l');
        }
        counted.colons += usize::from(colons);
        counted.openings += usize::from(openings);
        null |= block_null;
        at = end;
    }
    if null {
        return None;
    }
    for byte in &message[at..] {
        counted.colons += usize::from(*byte == b':');
        counted.openings += usize::from(matches!(byte, b'{' | b'['));
    }
    Some(counted)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn refused(message: &Value) -> Option<Value> {
        let bytes = serde_json::to_vec(message).unwrap();
        Prescan::default()
            .refusal(&bytes)
            .map(|reply| serde_json::from_slice(&reply).expect("a JSON reply"))
    }

    fn call(params: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params })
    }

    #[test]
    fn a_meta_of_the_wrong_type_is_refused_under_the_request_id() {
        let reply = refused(&call(json!({ "name": "t", "_meta": [1] }))).expect("refused");
        assert_eq!(reply["id"], 4);
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["error"]["data"]["field"], "_meta");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`_meta` must be an object, not an array"),
            "{message}"
        );
    }

    #[test]
    fn params_that_are_not_an_object_are_refused_and_null_is_named() {
        for (params, kind) in [
            (json!([]), "an array"),
            (json!(null), "null"),
            (json!(3), "a number"),
        ] {
            let reply = refused(&call(params)).expect("refused");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("params must be an object, not {kind}")),
                "{message}"
            );
        }
    }

    #[test]
    fn well_formed_requests_and_other_messages_pass() {
        let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
        assert!(
            refused(&call(
                json!({ "name": "t", "arguments": {}, "_meta": meta })
            ))
            .is_none()
        );
        assert!(refused(&call(json!({ "name": "t", "_meta": null }))).is_none());
        assert!(
            refused(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [] }))
                .is_none()
        );
        // A notification, a response, a batch, a foreign version, an id rmcp refuses: not ours.
        assert!(
            refused(&json!({ "jsonrpc": "2.0", "method": "tools/call", "params": [] })).is_none()
        );
        assert!(refused(&json!({ "jsonrpc": "2.0", "id": 1, "result": {} })).is_none());
        assert!(refused(&json!([call(json!([]))])).is_none());
        assert!(
            refused(&json!({ "jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": [] }))
                .is_none()
        );
        assert!(
            refused(&json!({ "jsonrpc": "2.0", "id": {}, "method": "tools/call", "params": [] }))
                .is_none()
        );
        assert!(
            refused(&json!({ "jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": [] }))
                .is_none()
        );
        assert!(
            Prescan::default()
                .refusal(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"")
                .is_none()
        );
    }

    #[test]
    fn ids_are_echoed_as_rmcp_reads_them() {
        let mut message = call(json!([]));
        message["id"] = json!("req-\u{e9}");
        assert_eq!(refused(&message).unwrap()["id"], "req-\u{e9}");
        let text = br#"{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":[]}"#;
        let reply: Value =
            serde_json::from_slice(&Prescan::default().refusal(text).unwrap()).unwrap();
        assert_eq!(reply["id"], 100);
    }

    #[test]
    fn input_responses_over_the_key_limit_are_refused_from_a_count() {
        let keys = |n: usize| {
            (0..n)
                .map(|i| (format!("k{i}"), json!({ "action": "cancel" })))
                .collect::<serde_json::Map<_, _>>()
        };
        let over =
            refused(&call(json!({ "name": "t", "inputResponses": keys(65) }))).expect("refused");
        let message = over["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("65 keys in inputResponses; at most 64"),
            "{message}"
        );
        assert!(refused(&call(json!({ "name": "t", "inputResponses": keys(64) }))).is_none());
    }

    #[cfg(feature = "http")]
    proptest::proptest! {
        /// The block-at-a-time scan counts and finds what a byte-at-a-time one does, wherever
        /// the colons, brackets and `null`s fall against the 240-byte blocks and the tail.
        #[test]
        fn the_scan_counts_colons_and_brackets_and_finds_nulls_as_bytes_do(
            message in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(b":nul\"x\xff{[".to_vec()),
                    proptest::prelude::any::<u8>(),
                ],
                0..600,
            ),
        ) {
            let null = message.windows(4).any(|four| four == b"null");
            let count = |sought: &[u8]| message.iter().filter(|byte| sought.contains(byte)).count();
            let expected = Survey { colons: count(b":"), openings: count(b"{[") };
            proptest::prop_assert_eq!(survey(&message), (!null).then_some(expected));
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn whole_blocks_of_what_is_counted_do_not_overflow_a_block_count() {
        for sought in [b':', b'{', b'['] {
            let message = vec![sought; 1000];
            let expected = if sought == b':' { (1000, 0) } else { (0, 1000) };
            assert_eq!(
                survey(&message).map(|s| (s.colons, s.openings)),
                Some(expected)
            );
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn rmcp_reads_first_only_what_cannot_hold_too_many_keys_or_a_null() {
        let limits = Limits {
            max_keys: 3,
            ..Limits::default()
        };
        let prescan = Prescan::new(limits);
        let keys = |n: usize| {
            let entries = (0..n).map(|i| (format!("k{i}"), json!(i)));
            call(json!({ "inputResponses": entries.collect::<serde_json::Map<_, _>>() }))
        };
        for n in 0..6 {
            let message = serde_json::to_vec(&keys(n)).unwrap();
            let first = prescan.rmcp_may_read_first(&message).is_some();
            // Whatever rmcp reads first, the scan would not have refused for its key count.
            assert!(!first || prescan.refusal(&message).is_none(), "{n} keys");
        }
        // Three colons and the limit is three: no object in it can hold four keys.
        assert_eq!(
            prescan.rmcp_may_read_first(br#"{"a":1,"b":{"c":2}}"#),
            Some(RawBounds {
                openings: 2,
                bytes: 19
            })
        );
        // A colon inside a string counts too: the bound errs only toward scanning first.
        assert!(
            prescan
                .rmcp_may_read_first(br#"{"a":1,"b":{"c":"d:e"}}"#)
                .is_none()
        );
        // rmcp answers `"params": null` itself, less precisely than the scan; any null, however
        // its key is spelt, is scanned first.
        assert!(
            prescan
                .rmcp_may_read_first(br#"{"par\u0061ms":null}"#)
                .is_none()
        );
        assert!(
            Prescan::default()
                .rmcp_may_read_first(&serde_json::to_vec(&call(Value::Null)).unwrap())
                .is_none()
        );
    }

    #[test]
    fn an_escaped_field_name_is_still_the_field() {
        let text = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","\u005fmeta":7}}"#;
        let reply: Value =
            serde_json::from_slice(&Prescan::default().refusal(text).unwrap()).unwrap();
        assert_eq!(reply["error"]["data"]["field"], "_meta");
    }
}
