//! The `requestState` token: a sealed continuation.
//!
//! OWNER: helper A (token format, AEAD/HMAC, key ring, claims encoding). The types and
//! signatures below are the contract the machine relies on.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::bind::BindDigest;
use crate::error::MrtrError;
use crate::request::InputRequest;

/// What a suspended handler needs to resume on any instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Continuation {
    /// The resume step (the step enum's variant name).
    pub step: String,
    /// The handler's layout fingerprint for that step.
    pub fingerprint: u64,
    /// How many rounds this call has taken so far (1 on the first `input_required`).
    pub round: u32,
    /// The asks of this step still waiting for a valid answer; re-issued without re-running code.
    pub pending: BTreeMap<String, InputRequest>,
    /// Answers of this step already received in earlier rounds (partial answers).
    pub answered: BTreeMap<String, Value>,
    /// The carried locals, encoded by `carry::SlotWriter`.
    pub carried: Vec<u8>,
}

/// What a token is bound to: the request it continues and who may present it.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub bind: BindDigest,
    /// The authenticated subject, never a raw bearer token. Hashed before it is sealed.
    pub principal: Option<String>,
}

/// A token that passed every check.
#[derive(Clone, Debug)]
pub struct Opened {
    pub continuation: Continuation,
    /// Stable for this exact token: a duplicated retry presents the same key.
    pub idempotency_key: crate::replay::IdempotencyKey,
    /// Expiry of the token, seconds since the Unix epoch (for replay-guard retention).
    pub expires_at: u64,
}

/// Seals and opens continuations with a key ring.
#[derive(Clone)]
pub struct Sealer {}

impl Sealer {
    pub fn from_config(config: &crate::config::StateConfig) -> Result<Self, MrtrError> {
        let _ = config;
        todo!()
    }

    pub fn seal(
        &self,
        continuation: &Continuation,
        binding: &Binding,
    ) -> Result<String, MrtrError> {
        let _ = (continuation, binding);
        todo!()
    }

    /// Checks, in order: size cap, format, key id, tag, expiry, audience, bind digest, principal.
    /// The fingerprint is checked by the generated prologue (it knows the step's layout).
    pub fn open(&self, token: &str, binding: &Binding) -> Result<Opened, MrtrError> {
        let _ = (token, binding);
        todo!()
    }
}
