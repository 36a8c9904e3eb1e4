//! The `requestState` token: a sealed continuation.
//!
//! Reading order: [`Sealer::seal`] stamps the continuation with its binding and lifetime
//! (`claims`), protects it with the active key (`cipher`) and writes the token text
//! (`token`); [`Sealer::open`] runs the same path backwards and checks every claim before the
//! continuation is handed to the handler. Keys and their rotation live in [`keyring`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::bind::BindDigest;
use crate::error::MrtrError;
use crate::request::{Asks, InputRequest};

mod base64url;
mod bound;
mod cipher;
mod claims;
mod clock;
mod keyring;
pub(crate) mod known_forms;
mod mode;
mod token;

pub use clock::Clock;
pub use keyring::{KeyRing, MAX_KID_LEN, MIN_KEY_BYTES, StateKey};
pub use mode::{StateFormat, StateMode};

use bound::{AUDIENCE_LEN, AssociatedData, Bound};
use cipher::KeyMaterial;
use claims::{Sealed, Stamp};

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
    pub pending: Asks,
    /// Answers of this step already received in earlier rounds (partial answers).
    pub answered: BTreeMap<String, Value>,
    /// The carried locals of the step, in its slot order (`carry::Slots`).
    pub carried: Vec<u8>,
}

impl Continuation {
    /// The pending asks without a valid answer yet: what the next `input_required` asks for.
    pub(crate) fn unanswered(&self) -> impl Iterator<Item = (&String, &InputRequest)> {
        self.pending
            .iter()
            .filter(|(key, _)| !self.answered.contains_key(*key))
    }

    /// [`Self::unanswered`] by value, for a continuation already sealed.
    pub(crate) fn into_unanswered(self) -> impl Iterator<Item = (String, InputRequest)> {
        let Continuation {
            pending, answered, ..
        } = self;
        pending
            .into_iter()
            .filter(move |(key, _)| !answered.contains_key(key))
    }
}

/// What a token is bound to: the request it continues and who may present it.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub bind: BindDigest,
    /// The authenticated subject, never a raw bearer token. Hashed before it is sealed.
    pub principal: Option<String>,
}

/// Stable per continuation token: derived from the token's authenticated id, so every
/// presentation of one token yields the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey(pub [u8; 16]);

impl fmt::Display for IdempotencyKey {
    /// Lowercase hex, ready to hand to a backend as a string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

/// A token that passed every check.
#[derive(Clone, Debug)]
pub struct Opened {
    pub continuation: Continuation,
    /// Stable for this exact token: a duplicated retry presents the same key.
    pub idempotency_key: IdempotencyKey,
    /// Expiry of the token, seconds since the Unix epoch (for replay-guard retention).
    pub expires_at: u64,
    /// When the token was sealed, seconds since the Unix epoch.
    pub issued_at: u64,
}

/// Seals and opens continuations with a key ring.
#[derive(Clone)]
pub struct Sealer {
    inner: Arc<Inner>,
}

struct Inner {
    mode: StateMode,
    /// The format this sealer seals; it opens both.
    format: StateFormat,
    /// The active key first; a ring holds a handful of keys, so a scan beats a map.
    keys: Vec<(String, KeyMaterial)>,
    /// What every token this sealer seals starts with (`x2.<active kid>.`), built once.
    header: String,
    audience: [u8; AUDIENCE_LEN],
    ttl_secs: u64,
    max_bytes: usize,
    clock: Clock,
}

impl Sealer {
    /// A sealer for settings that `StateConfig::validate` accepted.
    pub(crate) fn new(
        keys: &KeyRing,
        mode: StateMode,
        format: StateFormat,
        audience: &str,
        ttl: Duration,
        max_bytes: usize,
        clock: Clock,
    ) -> Self {
        let keys: Vec<(String, KeyMaterial)> = keys
            .keys()
            .iter()
            .map(|key| (key.kid().to_owned(), KeyMaterial::derive(key)))
            .collect();
        let header = keys
            .first()
            .map_or_else(String::new, |(kid, _)| token::header(mode, format, kid));
        Sealer {
            inner: Arc::new(Inner {
                mode,
                format,
                keys,
                header,
                audience: audience_hash(audience),
                ttl_secs: ttl.as_secs().max(1),
                max_bytes,
                clock,
            }),
        }
    }

    pub fn seal(
        &self,
        continuation: &Continuation,
        binding: &Binding,
    ) -> Result<String, MrtrError> {
        let inner = &*self.inner;
        let format = inner.format;
        let (_, key) = inner
            .keys
            .first()
            .ok_or_else(|| MrtrError::Internal("the key ring is empty".into()))?;
        let issued_at = inner.clock.now();
        let bound = inner.bound(key, binding);
        let header = &inner.header;
        let (binding, associated) = match format {
            StateFormat::V2 => (
                Sealed::Check(bound.check()),
                AssociatedData::bound(header, &bound),
            ),
            StateFormat::V1 => (Sealed::Full(bound), AssociatedData::header(header)),
        };
        let stamp = Stamp {
            issued_at,
            expires_at: issued_at.saturating_add(inner.ttl_secs),
            binding,
        };
        let claims = claims::encode(&stamp, continuation).map_err(|reason| {
            MrtrError::Internal(format!("cannot encode the continuation: {reason}"))
        })?;
        // Refused from the claims' size, before they are encrypted and base64-encoded: a 3 MB
        // local costs one copy of itself to find out it is too big, not an 8 MB token.
        let token_len =
            header.len() + base64url::encoded_len(cipher::min_body_len(inner.mode) + claims.len());
        if token_len > inner.max_bytes {
            return Err(too_large(continuation, token_len, inner.max_bytes));
        }
        let body = key.protect(inner.mode, associated.as_bytes(), &claims)?;
        let token = token::assemble(header, &body);
        debug_assert_eq!(
            token.len(),
            token_len,
            "the predicted token length is exact"
        );
        Ok(token)
    }

    /// Checks, in order: size cap, format, key id, tag (over the binding too, from format 2),
    /// expiry, and for format 1 the audience, bind digest and principal it carries. The
    /// fingerprint is checked by the generated prologue (it knows the step's layout).
    pub fn open(&self, token: &str, binding: &Binding) -> Result<Opened, MrtrError> {
        let inner = &*self.inner;
        if token.len() > inner.max_bytes {
            return Err(rejected(format!(
                "{} bytes, over the cap of {}",
                token.len(),
                inner.max_bytes
            )));
        }
        let parsed = token::parse(token, inner.mode, cipher::min_body_len(inner.mode))
            .map_err(|reason| rejected(format!("format: {reason}")))?;
        let (_, key) = inner
            .keys
            .iter()
            .find(|(kid, _)| kid == parsed.kid)
            .ok_or_else(|| {
                rejected(format!(
                    "unknown key id `{}` (retired, or minted elsewhere)",
                    parsed.kid
                ))
            })?;
        let bound = inner.bound(key, binding);
        let associated = match parsed.format {
            StateFormat::V2 => AssociatedData::bound(parsed.header, &bound),
            StateFormat::V1 => AssociatedData::header(parsed.header),
        };
        let (claims, token_id) = key
            .unprotect(inner.mode, associated.as_bytes(), parsed.body)
            .map_err(|body| inner.refused_tag(key, parsed.format, parsed.kid, &body, &bound))?;
        // Authenticated bytes that do not decode mean a bug or a leaked key, not a client typo.
        let (stamp, continuation) = claims::decode(&claims, parsed.format)
            .map_err(|reason| rejected(format!("claims: {reason}")))?;
        let now = inner.clock.now();
        if now >= stamp.expires_at {
            return Err(rejected(format!(
                "expired at {} (now {now})",
                stamp.expires_at
            )));
        }
        if let Sealed::Full(sealed) = &stamp.binding
            && let Some(reason) = bound.differs_from(sealed)
        {
            return Err(rejected(reason.to_owned()));
        }
        Ok(Opened {
            continuation,
            idempotency_key: IdempotencyKey(token_id),
            expires_at: stamp.expires_at,
            issued_at: stamp.issued_at,
        })
    }
}

impl Inner {
    /// The binding as this sealer authenticates it: the principal as its keyed hash under
    /// `key`, so a sign-only token does not reveal the subject.
    fn bound(&self, key: &KeyMaterial, binding: &Binding) -> Bound {
        Bound {
            audience: self.audience,
            bind: binding.bind.0,
            principal: binding
                .principal
                .as_deref()
                .map(|subject| key.principal_hash(subject)),
        }
    }

    /// The refusal of a token whose tag did not verify. A format 2 token fails its tag when it
    /// was bound to something else, so its check names what differs; failing that (or for
    /// format 1, whose binding is checked after the tag), it was forged, or sealed under
    /// another secret of this key id.
    fn refused_tag(
        &self,
        key: &KeyMaterial,
        format: StateFormat,
        kid: &str,
        body: &[u8],
        bound: &Bound,
    ) -> MrtrError {
        let differs = match format {
            StateFormat::V2 => key
                .peek(self.mode, body)
                .and_then(|head| claims::peek(&head, self.clock.now(), PEEK_MAX_AGE))
                .and_then(|check| bound.differs_from_check(check)),
            StateFormat::V1 => None,
        };
        rejected(match differs {
            // Sign-only claims read the same under any secret, and the principal's hash is
            // keyed: a principal that differs alone may be a secret that differs.
            Some(reason) if self.mode == StateMode::Hmac && reason.contains("principal") => {
                format!("{reason} (or sealed under another secret of key `{kid}`)")
            }
            Some(reason) => reason.to_owned(),
            None => format!("tag does not verify under key `{kid}`"),
        })
    }
}

/// The oldest a token whose tag failed may look for its check to be read: the longest TTL a
/// server accepts, and a day for clocks and stragglers. Bytes that claim to be older are noise.
const PEEK_MAX_AGE: u64 = 2 * 86_400;

impl Sealer {
    /// The largest token this sealer produces or accepts (`MRTR_STATE_MAX_BYTES`).
    pub fn max_bytes(&self) -> usize {
        self.inner.max_bytes
    }

    /// How long a token this sealer mints stays valid (`MRTR_STATE_TTL`).
    pub fn ttl(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.inner.ttl_secs)
    }
}

/// The precise reason goes to the operator's log; the client gets a generic error.
pub(crate) fn too_large(continuation: &Continuation, token_len: usize, max: usize) -> MrtrError {
    MrtrError::StateTooLarge(format!(
        "requestState for step `{}` would be {token_len} bytes, over the cap of {max} (carried \
         locals: {} bytes, answers and pending asks: {} entries); carry ids instead of payloads, \
         or raise MRTR_STATE_MAX_BYTES",
        continuation.step,
        continuation.carried.len(),
        continuation.answered.len() + continuation.pending.len(),
    ))
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kids: Vec<&str> = self
            .inner
            .keys
            .iter()
            .map(|(kid, _)| kid.as_str())
            .collect();
        f.debug_struct("Sealer")
            .field("mode", &self.inner.mode)
            .field("kids", &kids)
            .field("ttl_secs", &self.inner.ttl_secs)
            .field("max_bytes", &self.inner.max_bytes)
            .finish_non_exhaustive()
    }
}

/// The audience is configuration, not a secret; 128 bits keep two services' names apart.
fn audience_hash(audience: &str) -> [u8; AUDIENCE_LEN] {
    let digest = Sha256::new()
        .chain_update(b"mrtr/audience/v1\0")
        .chain_update(audience.as_bytes())
        .finalize();
    let mut out = [0u8; AUDIENCE_LEN];
    out.copy_from_slice(&digest[..AUDIENCE_LEN]);
    out
}

fn rejected(reason: String) -> MrtrError {
    MrtrError::RejectedState(reason)
}

#[cfg(test)]
mod tests;
