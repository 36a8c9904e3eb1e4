//! Unpadded base64url for token bodies, encoded and decoded canonically.
//!
//! A token's body is encoded on every `input_required` and decoded on every retry, and the code
//! that does it is fetched afresh each round, like the rest of the round's code. The `base64`
//! crate's engine is built for long inputs (unrolled eight-byte chunks, a suffix path, a chunked
//! encoder): for a body of a few hundred bytes most of its cost was fetching that code. These two
//! loops do the same work in a fraction of the code.
//!
//! Decoding is canonical, as the token format requires (`token`): every character must be in
//! the alphabet, no padding, no length that leaves a lone character, and the bits a final
//! partial group does not use must be zero. Every byte string has exactly one text that decodes
//! to it, so the idempotency key, computed over the text, names one token.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Not a character of the alphabet (every sextet is below 64).
const INVALID: u8 = 0xFF;

/// Each byte's sextet, or [`INVALID`].
const SEXTETS: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut at = 0;
    while at < ALPHABET.len() {
        table[ALPHABET[at] as usize] = at as u8;
        at += 1;
    }
    table
};

/// The length of the text that encodes `len` bytes: four characters a whole group of three,
/// two or three for a final one or two bytes (no padding).
pub(crate) fn encoded_len(len: usize) -> usize {
    (len * 4).div_ceil(3)
}

/// Appends `bytes`, encoded, to `out`.
pub(crate) fn encode_into(bytes: &[u8], out: &mut String) {
    let char_of = |sextet: u32| ALPHABET[(sextet & 63) as usize];
    // Written in place as bytes: pushing `char`s one at a time cost four times the instructions.
    let mut text = std::mem::take(out).into_bytes();
    let start = text.len();
    text.resize(start + encoded_len(bytes.len()), 0);
    let (whole, tail) = text[start..].split_at_mut(bytes.len() / 3 * 4);
    let mut groups = bytes.chunks_exact(3);
    for (group, chars) in (&mut groups).zip(whole.chunks_exact_mut(4)) {
        let bits = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        chars.copy_from_slice(&[18, 12, 6, 0].map(|shift| char_of(bits >> shift)));
    }
    match (groups.remainder(), tail) {
        ([a], [first, second]) => {
            *first = char_of(u32::from(*a) >> 2);
            *second = char_of(u32::from(*a) << 4);
        }
        ([a, b], [first, second, third]) => {
            let bits = u32::from(*a) << 8 | u32::from(*b);
            *first = char_of(bits >> 10);
            *second = char_of(bits >> 4);
            *third = char_of(bits << 2);
        }
        _ => {}
    }
    *out = String::from_utf8(text).expect("a String followed by base64url characters is UTF-8");
}

/// The bytes `text` encodes, or `None` if it is not the canonical encoding of any.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    let mut groups = text.chunks_exact(4);
    let tail_bytes = match groups.remainder().len() {
        0 => 0,
        2 => 1,
        3 => 2,
        // A lone character carries six bits: not a whole byte of anything.
        _ => return None,
    };
    let whole_bytes = text.len() / 4 * 3;
    #[expect(
        clippy::slow_vector_initialization,
        reason = "`vec![0; n]` is `calloc`, code no other part of a round runs"
    )]
    let mut bytes = Vec::with_capacity(whole_bytes + tail_bytes);
    bytes.resize(whole_bytes + tail_bytes, 0);
    let (whole, tail) = bytes.split_at_mut(whole_bytes);
    for (group, out) in (&mut groups).zip(whole.chunks_exact_mut(3)) {
        let bits = sextets(group)?;
        out.copy_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
    }
    // Two characters carry one byte and four unused bits, three carry two and two unused; the
    // unused bits must be zero.
    match (groups.remainder(), tail) {
        ([], []) => {}
        (chars @ [_, _], [only]) => {
            let bits = sextets(chars).filter(|bits| bits & 0xF == 0)?;
            *only = (bits >> 4) as u8;
        }
        (chars @ [_, _, _], [first, second]) => {
            let bits = sextets(chars).filter(|bits| bits & 0x3 == 0)?;
            *first = (bits >> 10) as u8;
            *second = (bits >> 2) as u8;
        }
        _ => return None,
    }
    Some(bytes)
}

/// The sextets of up to four characters, most significant first; `None` if any is not in the
/// alphabet.
fn sextets(chars: &[u8]) -> Option<u32> {
    let mut bits = 0u32;
    let mut seen = 0u8;
    for &char in chars {
        let sextet = SEXTETS[usize::from(char)];
        seen |= sextet;
        bits = bits << 6 | u32::from(sextet);
    }
    // Every sextet is below 64, and `INVALID` is not.
    (seen < 64).then_some(bits)
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use proptest::prelude::*;

    use super::*;

    fn encoded(bytes: &[u8]) -> String {
        let mut text = String::new();
        encode_into(bytes, &mut text);
        assert_eq!(text.len(), encoded_len(bytes.len()));
        text
    }

    #[test]
    fn the_rfc_4648_vectors_encode_and_decode() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
            (&[0xFB, 0xFF, 0xBF], "-_-_"),
        ] {
            assert_eq!(encoded(bytes), text);
            assert_eq!(decode(text).as_deref(), Some(bytes), "{text}");
        }
    }

    #[test]
    fn only_the_canonical_text_decodes() {
        for text in [
            "Z",      // a lone character
            "Zh",     // unused bits set: "Zg" is the canonical text of "f"
            "Zm9",    // unused bits set: "Zm8" is "fo"
            "Zg==",   // padding
            "Zm9v\n", // whitespace
            "Zm+v",   // the standard alphabet's `+`
            "Zm/v",   // and its `/`
            "Zm9vé",  // not ASCII
        ] {
            assert_eq!(decode(text), None, "{text:?}");
        }
    }

    proptest! {
        /// The same text as the `base64` crate's unpadded URL-safe engine, which decodes it back.
        #[test]
        fn encoding_matches_the_base64_crate(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let text = encoded(&bytes);
            prop_assert_eq!(&text, &URL_SAFE_NO_PAD.encode(&bytes));
            prop_assert_eq!(decode(&text), Some(bytes));
        }

        /// Any text, mostly of the alphabet, decodes exactly when the `base64` crate's canonical
        /// decoder accepts it, and to the same bytes.
        #[test]
        fn decoding_accepts_and_refuses_what_the_base64_crate_does(
            text in "[A-Za-z0-9_=+/.-]{0,40}|[A-Za-z0-9_-]{0,80}"
        ) {
            prop_assert_eq!(decode(&text), URL_SAFE_NO_PAD.decode(&text).ok());
        }
    }
}
