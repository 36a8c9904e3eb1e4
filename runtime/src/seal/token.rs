//! The `requestState` text: `<version>.<kid>.<body>`.
//!
//! ```text
//! x1.k2.<base64url(nonce[24] || XChaCha20-Poly1305(claims) || tag[16])>   (StateMode::Aead)
//! h1.k2.<base64url(id[16] || claims || HMAC-SHA256[32])>                   (StateMode::Hmac)
//! ```
//!
//! The header `x1.k2.` (version, key id and both dots) is the AEAD's associated data, or the
//! start of the HMAC input, so it is authenticated with the body. The body is base64url without
//! padding, decoded canonically: a decoder that ignored non-zero trailing bits would let two
//! different strings open to the same bytes, and the idempotency key is computed over the text.
//! Together these make every byte of the token count: a flipped bit, a truncation or an appended
//! suffix such as the conformance suite's `-TAMPERED` all fail.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::seal::keyring::{MAX_KID_LEN, is_kid_byte};
use crate::seal::mode::StateMode;

const AEAD_V1: &str = "x1";
const HMAC_V1: &str = "h1";

/// A token split into its parts; nothing in it is authenticated yet.
pub(crate) struct Token<'a> {
    /// `x1.k2.`: the authenticated header.
    pub header: &'a str,
    pub kid: &'a str,
    pub body: Vec<u8>,
}

pub(crate) fn version(mode: StateMode) -> &'static str {
    match mode {
        StateMode::Aead => AEAD_V1,
        StateMode::Hmac => HMAC_V1,
    }
}

pub(crate) fn header(mode: StateMode, kid: &str) -> String {
    let mut header = String::with_capacity(version(mode).len() + kid.len() + 2);
    header.push_str(version(mode));
    header.push('.');
    header.push_str(kid);
    header.push('.');
    header
}

pub(crate) fn assemble(header: &str, body: &[u8]) -> String {
    let mut token = String::with_capacity(header.len() + body.len().div_ceil(3) * 4);
    token.push_str(header);
    URL_SAFE_NO_PAD.encode_string(body, &mut token);
    token
}

/// Splits `token` and decodes its body; `min_body` is the mode's nonce/id plus tag length.
pub(crate) fn parse(token: &str, mode: StateMode, min_body: usize) -> Result<Token<'_>, String> {
    let (version_text, rest) = token.split_once('.').ok_or("no version prefix")?;
    if version_text != version(mode) {
        return Err(match version_text {
            AEAD_V1 | HMAC_V1 => format!(
                "token version `{version_text}` belongs to the other state mode (this server uses `{}`)",
                version(mode)
            ),
            _ => "unknown token version".to_owned(),
        });
    }
    let (kid, body) = rest.split_once('.').ok_or("no key id")?;
    if kid.is_empty() || kid.len() > MAX_KID_LEN || !kid.bytes().all(is_kid_byte) {
        return Err("malformed key id".into());
    }
    let header = &token[..version_text.len() + kid.len() + 2];
    let body = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| "body is not canonical unpadded base64url")?;
    if body.len() < min_body {
        return Err(format!(
            "body of {} bytes is shorter than the {min_body} bytes of nonce and tag",
            body.len()
        ));
    }
    Ok(Token { header, kid, body })
}
