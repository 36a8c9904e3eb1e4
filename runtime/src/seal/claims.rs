//! The sealed claims: a tight binary layout for the fixed fields, CBOR for JSON values.
//!
//! The token crosses the wire twice per round, so every byte counts. Field names, hex digests
//! and decimal timestamps (what a JSON payload would spend its bytes on) are replaced by
//! positions, raw digests and LEB128 integers. Format 2 (what this build seals):
//!
//! ```text
//! flags        u8        bit 0: the binding has a principal
//! issued_at    varint    seconds since the Unix epoch
//! lifetime     varint    expires_at - issued_at
//! round        varint
//! fingerprint  8 bytes   little endian
//! check        3 bytes   the bind digest's first two bytes, the audience hash's first byte
//!              (+1 byte) the principal hash's first byte, only when flag bit 0 is set
//! step         varint length + UTF-8
//! pending      varint count, then per ask: key, method byte, then by its bits:
//!                bit 7: CBOR params follow
//!                bit 6: a form known to this build: message (varint length + UTF-8) and
//!                       the 8-byte id of its schema (`known_forms`)
//! answered     varint count, then per answer: key, CBOR value
//! carried      every remaining byte
//! ```
//!
//! The binding itself is authenticated beside the claims, not in them (`bound`). Format 1
//! (still opened) has the binding in place of the check: the 32-byte bind digest, the 16-byte
//! audience hash, and the 16-byte principal hash when flag bit 0 is set.
//!
//! Decoding is strict (unknown flags, overlong varints, duplicate keys and truncation are all
//! errors) even though it only ever runs on authenticated bytes: a decoder that tolerates
//! what the encoder never writes is one more place for a key-compromise to turn into a crash.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::cbor;
use crate::request::{Asks, InputMethod, InputRequest};
use crate::seal::Continuation;
use crate::seal::bound::{AUDIENCE_LEN, Bound, Check, PRINCIPAL_LEN};
use crate::seal::known_forms::{self, KnownForm};
use crate::seal::mode::StateFormat;

const FLAG_PRINCIPAL: u8 = 0b0000_0001;
const METHOD_HAS_PARAMS: u8 = 0b1000_0000;
const METHOD_KNOWN_FORM: u8 = 0b0100_0000;

/// The fields the sealer checks, next to the continuation the handler resumes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stamp {
    pub issued_at: u64,
    pub expires_at: u64,
    pub binding: Sealed,
}

/// The binding as a token keeps it: a check of it (format 2), or all of it (format 1).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Sealed {
    Check(Check),
    Full(Bound),
}

impl Sealed {
    fn has_principal(&self) -> bool {
        match self {
            Sealed::Check(check) => check.principal.is_some(),
            Sealed::Full(bound) => bound.principal.is_some(),
        }
    }
}

/// The claims of `continuation` under `stamp`. The sealer checks the size cap on what this
/// returns, before anything is encrypted or base64-encoded.
pub(crate) fn encode(stamp: &Stamp, continuation: &Continuation) -> Result<Vec<u8>, String> {
    // Nearly always one allocation: the carried locals, and room for the fixed fields, the step
    // and a few asks or answers.
    let mut out = Vec::with_capacity(continuation.carried.len() + 256);
    write(&mut out, stamp, continuation)?;
    Ok(out)
}

fn write(out: &mut Vec<u8>, stamp: &Stamp, continuation: &Continuation) -> Result<(), String> {
    out.push(if stamp.binding.has_principal() {
        FLAG_PRINCIPAL
    } else {
        0
    });
    put_varint(out, stamp.issued_at);
    let lifetime = stamp
        .expires_at
        .checked_sub(stamp.issued_at)
        .ok_or("the continuation expires before it is issued")?;
    put_varint(out, lifetime);
    put_varint(out, u64::from(continuation.round));
    out.extend_from_slice(&continuation.fingerprint.to_le_bytes());
    match &stamp.binding {
        Sealed::Check(check) => {
            out.extend_from_slice(&check.bind);
            out.push(check.audience);
            if let Some(principal) = check.principal {
                out.push(principal);
            }
        }
        Sealed::Full(bound) => {
            out.extend_from_slice(&bound.bind);
            out.extend_from_slice(&bound.audience);
            if let Some(principal) = &bound.principal {
                out.extend_from_slice(principal);
            }
        }
    }
    put_text(out, &continuation.step);
    put_varint(out, continuation.pending.len() as u64);
    for (key, request) in &continuation.pending {
        put_text(out, key);
        let method = method_byte(request.method);
        if let Some((message, form)) = known_form(request) {
            out.push(method | METHOD_KNOWN_FORM);
            put_text(out, message);
            out.extend_from_slice(&form.id());
            continue;
        }
        let at = out.len();
        out.push(method | METHOD_HAS_PARAMS);
        if !request.write_params(out) {
            out[at] = method;
        }
    }
    put_varint(out, continuation.answered.len() as u64);
    for (key, answer) in &continuation.answered {
        put_text(out, key);
        cbor::json::write(out, answer);
    }
    out.extend_from_slice(&continuation.carried);
    Ok(())
}

pub(crate) fn decode(bytes: &[u8], format: StateFormat) -> Result<(Stamp, Continuation), String> {
    let mut input = Reader { rest: bytes };
    let (stamp, round, fingerprint) = read_fixed(&mut input, format)?;
    let step = input.text("step")?;
    let mut pending = Asks::new();
    for _ in 0..input.count("pending")? {
        let key = input.text("ask key")?;
        let method = input.byte("ask method")?;
        let with_params = |params| {
            input_method(method & !METHOD_HAS_PARAMS).map(|m| InputRequest::new(m, params))
        };
        let request = match method & (METHOD_HAS_PARAMS | METHOD_KNOWN_FORM) {
            0 => with_params(None)?,
            // Stepped over, not decoded: a round that resumes with the answer never reads them.
            METHOD_HAS_PARAMS
                if method & !METHOD_HAS_PARAMS == method_byte(InputMethod::Sampling) =>
            {
                InputRequest::sealed(InputMethod::Sampling, input.cbor_item("ask params")?)
            }
            METHOD_HAS_PARAMS => with_params(Some(input.cbor("ask params")?))?,
            METHOD_KNOWN_FORM
                if method & !METHOD_KNOWN_FORM == method_byte(InputMethod::Elicitation) =>
            {
                let message = input.text("form message")?;
                let form = known_forms::by_id(&input.array("form id")?).ok_or(
                    "a form schema this build does not know (changed since it was sealed?)",
                )?;
                InputRequest::known_form(message, form)
            }
            _ => return Err(format!("invalid ask method byte {method:#04x}")),
        };
        if pending.insert(key, request).is_some() {
            return Err("duplicate ask key".into());
        }
    }
    let mut answered = BTreeMap::new();
    for _ in 0..input.count("answered")? {
        let key = input.text("answer key")?;
        if answered.insert(key, input.cbor("answer")?).is_some() {
            return Err("duplicate answer key".into());
        }
    }
    let continuation = Continuation {
        step,
        fingerprint,
        round,
        pending,
        answered,
        carried: input.rest.to_vec(),
    };
    Ok((stamp, continuation))
}

/// The check of the binding a format 2 token's claims begin with: enough to name why a tag
/// failed. `None` when the bytes do not read as claims sealed in the last `max_age` seconds
/// (then they were most likely decrypted under the wrong key, i.e. are noise).
pub(crate) fn peek(bytes: &[u8], now: u64, max_age: u64) -> Option<Check> {
    let (stamp, _, _) = read_fixed(&mut Reader { rest: bytes }, StateFormat::V2).ok()?;
    let plausible = stamp.issued_at <= now.saturating_add(PEEK_SKEW)
        && now.saturating_sub(stamp.issued_at) <= max_age
        && stamp.expires_at - stamp.issued_at <= max_age;
    match stamp.binding {
        Sealed::Check(check) if plausible => Some(check),
        _ => None,
    }
}

/// How far ahead of this instance's clock another instance's may run.
const PEEK_SKEW: u64 = 300;

/// The fields before the step: flags, times, round, fingerprint and the binding.
fn read_fixed(input: &mut Reader<'_>, format: StateFormat) -> Result<(Stamp, u32, u64), String> {
    let flags = input.byte("flags")?;
    if flags & !FLAG_PRINCIPAL != 0 {
        return Err(format!("unknown flags {flags:#04x}"));
    }
    let has_principal = flags & FLAG_PRINCIPAL != 0;
    let issued_at = input.varint("issued_at")?;
    let expires_at = issued_at
        .checked_add(input.varint("lifetime")?)
        .ok_or("expiry overflows")?;
    let round = u32::try_from(input.varint("round")?).map_err(|_| "round out of range")?;
    let fingerprint = u64::from_le_bytes(input.array("fingerprint")?);
    let binding = match format {
        StateFormat::V2 => Sealed::Check(Check {
            bind: input.array("check")?,
            audience: input.byte("check")?,
            principal: if has_principal {
                Some(input.byte("check")?)
            } else {
                None
            },
        }),
        StateFormat::V1 => Sealed::Full(Bound {
            bind: input.array("bind")?,
            audience: input.array::<AUDIENCE_LEN>("audience")?,
            principal: if has_principal {
                Some(input.array::<PRINCIPAL_LEN>("principal")?)
            } else {
                None
            },
        }),
    };
    let stamp = Stamp {
        issued_at,
        expires_at,
        binding,
    };
    Ok((stamp, round, fingerprint))
}

/// The message and the shared schema of a known form (`elicit::<T>` of a derived `T`, or one
/// opened from a token that named it).
fn known_form(request: &InputRequest) -> Option<(&str, &'static KnownForm)> {
    let form = request.form?;
    Some((request.param("message")?.as_str()?, form))
}

fn method_byte(method: InputMethod) -> u8 {
    match method {
        InputMethod::Elicitation => 0,
        InputMethod::Sampling => 1,
        InputMethod::Roots => 2,
    }
}

fn input_method(byte: u8) -> Result<InputMethod, String> {
    match byte {
        0 => Ok(InputMethod::Elicitation),
        1 => Ok(InputMethod::Sampling),
        2 => Ok(InputMethod::Roots),
        other => Err(format!("unknown ask method {other}")),
    }
}

/// Unsigned LEB128.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl Reader<'_> {
    fn take(&mut self, len: usize, what: &str) -> Result<&[u8], String> {
        if self.rest.len() < len {
            return Err(format!("truncated at {what}"));
        }
        let (head, tail) = self.rest.split_at(len);
        self.rest = tail;
        Ok(head)
    }

    fn byte(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn varint(&mut self, what: &str) -> Result<u64, String> {
        let mut value = 0u64;
        for index in 0..10 {
            let byte = self.byte(what)?;
            let bits = u64::from(byte & 0x7f);
            // The tenth byte may only hold the top bit of a u64; a trailing zero byte would be a
            // second encoding of a shorter number.
            if (index == 9 && bits > 1) || (index > 0 && byte == 0) {
                return Err(format!("non-canonical varint at {what}"));
            }
            value |= bits << (7 * index);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("varint too long at {what}"))
    }

    /// A count of entries, each of which takes at least two bytes; bounds the allocation.
    fn count(&mut self, what: &str) -> Result<usize, String> {
        let count = self.varint(what)?;
        if count > (self.rest.len() / 2) as u64 {
            return Err(format!("{what} count {count} exceeds the remaining bytes"));
        }
        Ok(count as usize)
    }

    fn text(&mut self, what: &str) -> Result<String, String> {
        let len = usize::try_from(self.varint(what)?)
            .map_err(|_| format!("length out of range at {what}"))?;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }

    fn cbor(&mut self, what: &str) -> Result<Value, String> {
        cbor::json::read(&mut self.rest).map_err(|e| format!("{what}: {e}"))
    }

    /// The bytes of one CBOR item of JSON, checked as [`Self::cbor`] checks it but not decoded.
    fn cbor_item(&mut self, what: &str) -> Result<&[u8], String> {
        let item = self.rest;
        cbor::json::skip(&mut self.rest).map_err(|e| format!("{what}: {e}"))?;
        Ok(&item[..item.len() - self.rest.len()])
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn bound() -> Bound {
        Bound {
            bind: [7; 32],
            audience: [9; AUDIENCE_LEN],
            principal: Some([3; PRINCIPAL_LEN]),
        }
    }

    fn sample() -> (Stamp, Continuation) {
        sample_as(StateFormat::V2)
    }

    fn sample_as(format: StateFormat) -> (Stamp, Continuation) {
        let stamp = Stamp {
            issued_at: 1_764_450_000,
            expires_at: 1_764_450_300,
            binding: match format {
                StateFormat::V2 => Sealed::Check(bound().check()),
                StateFormat::V1 => Sealed::Full(bound()),
            },
        };
        let continuation = Continuation {
            step: "AfterConfirm".into(),
            fingerprint: 0x0123_4567_89ab_cdef,
            round: 2,
            pending: Asks::from([
                (
                    "confirm".to_owned(),
                    InputRequest::new(InputMethod::Elicitation, Some(json!({"message": "ok?"}))),
                ),
                (
                    "roots".to_owned(),
                    InputRequest::new(InputMethod::Roots, None),
                ),
            ]),
            answered: BTreeMap::from([(
                "roots".to_owned(),
                json!({"roots": [{"uri": "file:///w"}]}),
            )]),
            carried: vec![0x63, b'a', b'b', b'c'],
        };
        (stamp, continuation)
    }

    #[test]
    fn claims_round_trip_in_both_formats() {
        for format in [StateFormat::V2, StateFormat::V1] {
            let (stamp, continuation) = sample_as(format);
            let bytes = encode(&stamp, &continuation).unwrap();
            assert_eq!(decode(&bytes, format).unwrap(), (stamp, continuation));
        }
    }

    #[test]
    fn format_2_keeps_a_check_of_the_binding_in_place_of_the_binding() {
        let (v2, continuation) = sample_as(StateFormat::V2);
        let (v1, _) = sample_as(StateFormat::V1);
        let short = encode(&v2, &continuation).unwrap();
        let long = encode(&v1, &continuation).unwrap();
        assert_eq!(long.len() - short.len(), 32 + 16 + 16 - 4);
        assert_eq!(
            contains(&short, &[7; 4]),
            None,
            "no bind digest beyond its check"
        );
    }

    #[test]
    fn peek_reads_the_check_of_claims_sealed_lately_and_nothing_else() {
        let (stamp, continuation) = sample();
        let bytes = encode(&stamp, &continuation).unwrap();
        let now = stamp.issued_at + 10;
        assert_eq!(
            peek(&bytes[..40.min(bytes.len())], now, 600),
            Some(bound().check())
        );
        assert_eq!(peek(&bytes, now + 601, 600), None, "older than max_age");
        assert_eq!(
            peek(&bytes, stamp.issued_at - PEEK_SKEW - 1, 600),
            None,
            "from the future"
        );
        assert_eq!(peek(&bytes[..10], now, 600), None, "truncated");
        // Claims decrypted under another key are noise: none of these reads as lately sealed.
        let mut noise = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..10_000 {
            let bytes: Vec<u8> = (0..40)
                .map(|_| {
                    noise ^= noise << 13;
                    noise ^= noise >> 7;
                    noise ^= noise << 17;
                    noise as u8
                })
                .collect();
            assert_eq!(peek(&bytes, now, 2 * 86_400), None);
        }
    }

    #[test]
    fn every_truncation_of_the_fixed_fields_is_an_error() {
        for format in [StateFormat::V2, StateFormat::V1] {
            let (stamp, continuation) = sample_as(format);
            let bytes = encode(&stamp, &continuation).unwrap();
            let carried_at = bytes.len() - continuation.carried.len();
            for len in 0..carried_at {
                assert!(
                    decode(&bytes[..len], format).is_err(),
                    "a prefix of {len} bytes decoded"
                );
            }
        }
    }

    #[test]
    fn overlong_varints_are_rejected() {
        let mut reader = Reader {
            rest: &[0x81, 0x00],
        };
        assert!(reader.varint("test").is_err());
        let mut reader = Reader { rest: &[0xff; 11] };
        assert!(reader.varint("test").is_err());
        let mut max = Vec::new();
        put_varint(&mut max, u64::MAX);
        assert_eq!(Reader { rest: &max }.varint("test").unwrap(), u64::MAX);
    }

    #[test]
    fn unknown_flags_and_methods_are_rejected() {
        let (stamp, continuation) = sample();
        let mut bytes = encode(&stamp, &continuation).unwrap();
        bytes[0] |= 0b10;
        assert!(
            decode(&bytes, StateFormat::V2)
                .unwrap_err()
                .contains("flags")
        );
        assert!(input_method(3).is_err());
    }

    /// A form of this build: `#[derive(Elicit)]` registers its schema.
    #[derive(serde::Deserialize, crate::Elicit)]
    #[allow(dead_code)]
    struct Rollout {
        /// Wave size
        wave_size_for_the_claims_test: u32,
    }

    fn with_pending(request: InputRequest) -> (Stamp, Continuation) {
        let (stamp, mut continuation) = sample();
        continuation.pending = Asks::from([("wave".to_owned(), request)]);
        (stamp, continuation)
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    #[test]
    fn a_derived_form_is_sealed_by_its_id_and_opens_to_the_same_ask() {
        let ask = crate::request::elicit::<Rollout>("Wave size?").into_request();
        let (stamp, continuation) = with_pending(ask);
        let bytes = encode(&stamp, &continuation).unwrap();
        assert_eq!(contains(&bytes, b"wave_size_for_the_claims_test"), None);
        assert!(contains(&bytes, b"Wave size?").is_some());
        assert_eq!(
            decode(&bytes, StateFormat::V2).unwrap(),
            (stamp, continuation)
        );
    }

    #[test]
    fn a_hand_built_schema_is_sealed_in_full() {
        let schema = json!({
            "type": "object",
            "properties": {"hand_built_field": {"type": "string"}},
        });
        let ask = crate::request::elicit_with_schema::<Value>("Free text?", schema).into_request();
        let (stamp, continuation) = with_pending(ask);
        let bytes = encode(&stamp, &continuation).unwrap();
        assert!(contains(&bytes, b"hand_built_field").is_some());
        assert_eq!(
            decode(&bytes, StateFormat::V2).unwrap(),
            (stamp, continuation)
        );
    }

    #[test]
    fn a_form_id_this_build_does_not_know_is_refused() {
        let ask = crate::request::elicit::<Rollout>("Wave size?").into_request();
        let (stamp, continuation) = with_pending(ask);
        let mut bytes = encode(&stamp, &continuation).unwrap();
        let id_at = contains(&bytes, b"Wave size?").unwrap() + b"Wave size?".len();
        bytes[id_at] ^= 0xff;
        assert!(
            decode(&bytes, StateFormat::V2)
                .unwrap_err()
                .contains("does not know")
        );
    }

    #[test]
    fn a_form_id_on_another_method_or_with_params_is_refused() {
        let ask = crate::request::elicit::<Rollout>("Wave size?").into_request();
        let (stamp, continuation) = with_pending(ask);
        let bytes = encode(&stamp, &continuation).unwrap();
        let method_at = contains(&bytes, b"wave\x40").expect("the key, then the method byte") + 4;
        for byte in [
            METHOD_KNOWN_FORM | method_byte(InputMethod::Sampling),
            METHOD_KNOWN_FORM | METHOD_HAS_PARAMS,
        ] {
            let mut bytes = bytes.clone();
            bytes[method_at] = byte;
            assert!(
                decode(&bytes, StateFormat::V2)
                    .unwrap_err()
                    .contains("method byte"),
                "{byte:#04x}"
            );
        }
    }
}
