//! The two ways a continuation can be protected; the token's version prefix names the mode.

/// How the continuation is protected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StateMode {
    /// XChaCha20-Poly1305: the client can neither read nor change the carried locals and answers.
    #[default]
    Aead,
    /// HMAC-SHA256: the client cannot change the token but can read everything in it (the
    /// principal only as a keyed hash). For servers that want to inspect tokens in transit.
    Hmac,
}
