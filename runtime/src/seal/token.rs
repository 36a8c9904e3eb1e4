//! The `requestState` text: `<version>.<kid>.<body>`.
//!
//! ```text
//! x2.k2.<base64url(nonce[24] || XChaCha20-Poly1305(claims) || tag[16])>   (StateMode::Aead)
//! h2.k2.<base64url(id[16] || claims || HMAC-SHA256[32])>                   (StateMode::Hmac)
//! ```
//!
//! The version names the mode and the claims format (`x1`/`h1`: format 1, still opened). The
//! header `x2.k2.` (version, key id and both dots) starts the AEAD's associated data, or the
//! HMAC input, so it is authenticated with the body; the binding follows it there (`bound`).
//! The body is base64url without padding, decoded canonically: a decoder that ignored non-zero
//! trailing bits would let two different strings open to the same bytes, and the idempotency key
//! is computed over the text. Together these make every byte of the token count: a flipped bit,
//! a truncation or an appended suffix such as the conformance suite's `-TAMPERED` all fail.

use crate::seal::base64url;
use crate::seal::keyring::{MAX_KID_LEN, is_kid_byte};
use crate::seal::mode::{StateFormat, StateMode};

/// Every version a token may name, by mode and format.
const VERSIONS: [(&str, StateMode, StateFormat); 4] = [
    ("x2", StateMode::Aead, StateFormat::V2),
    ("h2", StateMode::Hmac, StateFormat::V2),
    ("x1", StateMode::Aead, StateFormat::V1),
    ("h1", StateMode::Hmac, StateFormat::V1),
];

/// A token split into its parts; nothing in it is authenticated yet.
pub(crate) struct Token<'a> {
    /// `x2.k2.`: the authenticated header.
    pub header: &'a str,
    pub format: StateFormat,
    pub kid: &'a str,
    pub body: Vec<u8>,
}

pub(crate) fn version(mode: StateMode, format: StateFormat) -> &'static str {
    VERSIONS
        .iter()
        .find(|(_, m, f)| *m == mode && *f == format)
        .map_or("", |(version, ..)| version)
}

pub(crate) fn header(mode: StateMode, format: StateFormat, kid: &str) -> String {
    let version = version(mode, format);
    let mut header = String::with_capacity(version.len() + kid.len() + 2);
    header.push_str(version);
    header.push('.');
    header.push_str(kid);
    header.push('.');
    header
}

pub(crate) fn assemble(header: &str, body: &[u8]) -> String {
    let mut token = String::with_capacity(header.len() + base64url::encoded_len(body.len()));
    token.push_str(header);
    base64url::encode_into(body, &mut token);
    token
}

/// Splits `token` and decodes its body; `min_body` is the mode's nonce/id plus tag length.
pub(crate) fn parse(token: &str, mode: StateMode, min_body: usize) -> Result<Token<'_>, String> {
    let (version_text, rest) = split_at_dot(token).ok_or("no version prefix")?;
    let (_, token_mode, format) = *VERSIONS
        .iter()
        .find(|(version, ..)| *version == version_text)
        .ok_or("unknown token version")?;
    if token_mode != mode {
        return Err(format!(
            "token version `{version_text}` belongs to the other state mode (this server uses `{}`)",
            version(mode, StateFormat::V2)
        ));
    }
    let (kid, body) = split_at_dot(rest).ok_or("no key id")?;
    if kid.is_empty() || kid.len() > MAX_KID_LEN || !kid.bytes().all(is_kid_byte) {
        return Err("malformed key id".into());
    }
    let header = &token[..version_text.len() + kid.len() + 2];
    let body = base64url::decode(body).ok_or("body is not canonical unpadded base64url")?;
    if body.len() < min_body {
        return Err(format!(
            "body of {} bytes is shorter than the {min_body} bytes of nonce and tag",
            body.len()
        ));
    }
    Ok(Token {
        header,
        format,
        kid,
        body,
    })
}

/// `text.split_once('.')` by a plain byte loop: the dots come within the first few bytes, and
/// `str`'s pattern searcher is a good deal more code to fetch for them each round.
fn split_at_dot(text: &str) -> Option<(&str, &str)> {
    let at = text.bytes().position(|byte| byte == b'.')?;
    Some((&text[..at], &text[at + 1..]))
}
