//! How a continuation is protected and laid out; the token's version prefix names both.

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

/// The claims layout a server seals; the token's version prefix names it (`x2`/`h2`, `x1`/`h1`).
/// Every build opens both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StateFormat {
    /// The binding is authenticated as associated data, not carried: 45 bytes shorter (60
    /// with a principal) than format 1.
    #[default]
    V2,
    /// The binding is carried in the claims: what builds before format 2 seal and open. Seal
    /// it while a fleet still runs such a build, so a round that lands there still opens.
    V1,
}
