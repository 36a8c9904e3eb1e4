//! Sealing keys: one active key seals, every key in the ring opens.
//!
//! Rotation happens in three stages so that no instance ever receives a token it cannot open:
//! add the new key accept-only everywhere, then promote it to active, then retire the old key
//! once every token it sealed has expired (one TTL after the promotion finished).

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD_INDIFFERENT;
use zeroize::Zeroizing;

use crate::error::{MrtrError, config_error};

/// Below 256 bits a key could be brute-forced offline from any token.
pub const MIN_KEY_BYTES: usize = 32;
/// Key ids travel in every token in clear text; keep them short and URL-safe.
pub const MAX_KID_LEN: usize = 32;

/// One named secret.
#[derive(Clone)]
pub struct StateKey {
    kid: String,
    secret: Zeroizing<Vec<u8>>,
}

impl StateKey {
    /// `secret` must hold at least [`MIN_KEY_BYTES`] random bytes; `kid` is 1 to
    /// [`MAX_KID_LEN`] characters from `A-Z a-z 0-9 _ -`.
    pub fn new(kid: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, MrtrError> {
        StateKey::checked(kid.into(), Zeroizing::new(secret.into())).map_err(config_error)
    }

    fn checked(kid: String, secret: Zeroizing<Vec<u8>>) -> Result<Self, String> {
        check_kid(&kid)?;
        if secret.len() < MIN_KEY_BYTES {
            return Err(format!(
                "key `{kid}` is {} bytes; a state key must be at least {MIN_KEY_BYTES} random bytes",
                secret.len()
            ));
        }
        Ok(StateKey { kid, secret })
    }

    /// A fresh random 32-byte key.
    pub fn generate(kid: impl Into<String>) -> Result<Self, MrtrError> {
        let mut secret = Zeroizing::new(vec![0u8; MIN_KEY_BYTES]);
        getrandom::fill(&mut secret).map_err(|e| {
            MrtrError::Internal(format!("cannot draw a random state key from the OS: {e}"))
        })?;
        StateKey::new(kid, secret.to_vec())
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub(crate) fn secret(&self) -> &[u8] {
        &self.secret
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// The keys a server seals and opens with; the first one seals.
#[derive(Clone)]
pub struct KeyRing {
    keys: Vec<StateKey>,
}

impl KeyRing {
    /// A ring with one key, which seals and opens.
    pub fn new(active: StateKey) -> Self {
        KeyRing { keys: vec![active] }
    }

    /// Adds an accept-only key: tokens sealed with it open, nothing new is sealed with it.
    pub fn accept(mut self, key: StateKey) -> Result<Self, MrtrError> {
        self.push(key).map_err(config_error)?;
        Ok(self)
    }

    fn push(&mut self, key: StateKey) -> Result<(), String> {
        if self.keys.iter().any(|known| known.kid == key.kid) {
            return Err(format!("key id `{}` appears twice", key.kid));
        }
        self.keys.push(key);
        Ok(())
    }

    /// A random key that lives as long as this process.
    ///
    /// Tokens it seals cannot be opened by any other instance or after a restart, so every
    /// retry that lands elsewhere fails with -32602. Fine for a laptop, wrong for production.
    pub fn ephemeral() -> Result<Self, MrtrError> {
        tracing::warn!(
            target: "mrtr",
            "MRTR_STATE_KEYS is not set: sealing requestState with an EPHEMERAL key. Every \
             restart and every other instance behind a load balancer will reject the \
             continuations this process mints. Set MRTR_STATE_KEYS=\"k1:<32+ random bytes, \
             base64url>\" on every instance."
        );
        Ok(KeyRing::new(StateKey::generate("ephemeral")?))
    }

    /// Parses `kid:<base64url>,kid:<base64url>,...` (the `MRTR_STATE_KEYS` syntax). Messages
    /// never quote a secret, since they end up in logs.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut ring: Option<KeyRing> = None;
        for (index, entry) in spec.split(',').enumerate() {
            let position = index + 1;
            let entry = entry.trim();
            if entry.is_empty() {
                return Err(format!(
                    "entry {position} is empty; expected `kid:<base64url key>`"
                ));
            }
            let Some((kid, encoded)) = entry.split_once(':') else {
                return Err(format!(
                    "entry {position} has no `kid:` prefix; expected `kid:<base64url key>`"
                ));
            };
            let kid = kid.trim();
            check_kid(kid).map_err(|reason| format!("entry {position}: {reason}"))?;
            let secret = URL_SAFE_NO_PAD_INDIFFERENT
                .decode(encoded.trim())
                .map_err(|_| {
                    format!(
                        "key `{kid}` is not base64url (alphabet A-Z a-z 0-9 - _, padding optional)"
                    )
                })?;
            let secret = Zeroizing::new(secret);
            let key = StateKey::checked(kid.to_owned(), secret)?;
            match &mut ring {
                None => ring = Some(KeyRing::new(key)),
                Some(ring) => ring.push(key)?,
            }
        }
        ring.ok_or_else(|| "no key given".to_owned())
    }

    /// The key new tokens are sealed with.
    pub fn active(&self) -> &StateKey {
        &self.keys[0]
    }

    /// Every key, the active one first.
    pub fn keys(&self) -> &[StateKey] {
        &self.keys
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kids: Vec<&str> = self.keys.iter().map(StateKey::kid).collect();
        f.debug_struct("KeyRing").field("kids", &kids).finish()
    }
}

pub(crate) fn check_kid(kid: &str) -> Result<(), String> {
    if kid.is_empty() || kid.len() > MAX_KID_LEN {
        return Err(format!(
            "a key id must be 1 to {MAX_KID_LEN} characters long"
        ));
    }
    if !kid.bytes().all(is_kid_byte) {
        return Err(format!(
            "key id `{}` may only use A-Z a-z 0-9 _ -",
            kid.escape_debug()
        ));
    }
    Ok(())
}

pub(crate) fn is_kid_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}
