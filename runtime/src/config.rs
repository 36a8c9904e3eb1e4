//! Configuration from the environment: `MRTR_STATE_KEYS`, `MRTR_STATE_TTL`, `MRTR_STATE_MAX_BYTES`.
//!
//! OWNER: helper A.

use std::time::Duration;

use crate::error::MrtrError;

/// How continuations are sealed.
#[derive(Clone, Debug)]
pub struct StateConfig {
    pub ttl: Duration,
    pub max_bytes: usize,
    /// The server identity a token is minted for; a token from another service is refused.
    pub audience: String,
}

impl StateConfig {
    /// Reads the environment; with no key configured an ephemeral key is generated and a loud
    /// warning is logged.
    pub fn from_env(audience: impl Into<String>) -> Result<Self, MrtrError> {
        let _ = audience;
        todo!()
    }
}
