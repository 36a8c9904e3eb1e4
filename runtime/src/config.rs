//! How continuations are sealed: keys, lifetime, size cap, mode and clock.
//!
//! Every example reads the same environment variables:
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `MRTR_STATE_KEYS` | `kid:<base64url>` entries, comma separated; the first seals, all open | an ephemeral key (with a warning) |
//! | `MRTR_STATE_TTL` | lifetime of one round's token, in seconds | `300` |
//! | `MRTR_STATE_MAX_BYTES` | largest `requestState` accepted or produced | `16384` |
//! | `MRTR_STATE_MODE` | `aead` (encrypted and authenticated) or `hmac` (signed only, readable by the client) | `aead` |
//! | `MRTR_STATE_FORMAT` | `2`, or `1` while a fleet still runs a build that opens only format 1 | `2` |

use std::collections::HashMap;
use std::time::Duration;

use crate::error::{MrtrError, config_error};
use crate::seal::Sealer;
pub use crate::seal::{
    Clock, KeyRing, MAX_KID_LEN, MIN_KEY_BYTES, StateFormat, StateKey, StateMode,
};

pub const KEYS_VAR: &str = "MRTR_STATE_KEYS";
pub const TTL_VAR: &str = "MRTR_STATE_TTL";
pub const MAX_BYTES_VAR: &str = "MRTR_STATE_MAX_BYTES";
pub const MODE_VAR: &str = "MRTR_STATE_MODE";
pub const FORMAT_VAR: &str = "MRTR_STATE_FORMAT";

/// A round's think time: long enough to read a form, short enough to bound replay.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);
/// The spec sets no size limit; the token travels in every retry body, so keep it small.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024;

/// Bounds on configured values: a TTL over a day turns a continuation into a long-lived bearer
/// credential, and a cap below a few hundred bytes cannot hold even an empty continuation.
pub const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);
pub const MIN_MAX_BYTES: usize = 256;
pub const MAX_MAX_BYTES: usize = 1024 * 1024;

/// How continuations are sealed.
#[derive(Clone, Debug)]
pub struct StateConfig {
    pub ttl: Duration,
    pub max_bytes: usize,
    /// The server identity a token is minted for; a token from another service is refused.
    pub audience: String,
    pub keys: KeyRing,
    pub mode: StateMode,
    /// The token format sealed; both are opened.
    pub format: StateFormat,
    pub clock: Clock,
}

impl StateConfig {
    /// Explicit keys and the defaults for everything else.
    pub fn new(audience: impl Into<String>, keys: KeyRing) -> Self {
        StateConfig {
            ttl: DEFAULT_TTL,
            max_bytes: DEFAULT_MAX_BYTES,
            audience: audience.into(),
            keys,
            mode: StateMode::default(),
            format: StateFormat::default(),
            clock: Clock::system(),
        }
    }

    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    pub fn with_mode(mut self, mode: StateMode) -> Self {
        self.mode = mode;
        self
    }

    pub fn with_format(mut self, format: StateFormat) -> Self {
        self.format = format;
        self
    }

    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Reads the environment; with no key configured an ephemeral key is generated and a loud
    /// warning is logged.
    pub fn from_env(audience: impl Into<String>) -> Result<Self, MrtrError> {
        let mut vars = HashMap::new();
        for name in [KEYS_VAR, TTL_VAR, MAX_BYTES_VAR, MODE_VAR, FORMAT_VAR] {
            match std::env::var(name) {
                Ok(value) => {
                    vars.insert(name, value);
                }
                Err(std::env::VarError::NotPresent) => {}
                Err(std::env::VarError::NotUnicode(_)) => {
                    return Err(config_error(format!("{name} is not valid UTF-8")));
                }
            }
        }
        Self::from_vars(audience, |name| vars.get(name).cloned())
    }

    /// [`StateConfig::from_env`] over any variable source, so parsing is testable without
    /// touching the process environment.
    pub fn from_vars(
        audience: impl Into<String>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, MrtrError> {
        let keys = match var(KEYS_VAR) {
            Some(spec) => KeyRing::parse(&spec)
                .map_err(|reason| config_error(format!("{KEYS_VAR}: {reason}")))?,
            None => KeyRing::ephemeral()?,
        };
        let mut config = StateConfig::new(audience, keys);
        if let Some(ttl) = var(TTL_VAR) {
            config.ttl = Duration::from_secs(parse_bounded(TTL_VAR, &ttl, 1, MAX_TTL.as_secs())?);
        }
        if let Some(max_bytes) = var(MAX_BYTES_VAR) {
            let max_bytes = parse_bounded(
                MAX_BYTES_VAR,
                &max_bytes,
                MIN_MAX_BYTES as u64,
                MAX_MAX_BYTES as u64,
            )?;
            config.max_bytes = max_bytes as usize;
        }
        if let Some(mode) = var(MODE_VAR) {
            config.mode = match mode.trim().to_ascii_lowercase().as_str() {
                "aead" => StateMode::Aead,
                "hmac" => StateMode::Hmac,
                _ => {
                    return Err(config_error(format!(
                        "{MODE_VAR} must be `aead` or `hmac`, not `{}`",
                        mode.trim()
                    )));
                }
            };
        }
        if let Some(format) = var(FORMAT_VAR) {
            config.format = match format.trim() {
                "2" => StateFormat::V2,
                "1" => StateFormat::V1,
                _ => {
                    return Err(config_error(format!(
                        "{FORMAT_VAR} must be `2` or `1`, not `{}`",
                        format.trim()
                    )));
                }
            };
        }
        config.validate()?;
        Ok(config)
    }

    /// Rejects values no deployment should run with; called again when a [`Runtime`] is built
    /// from this configuration, so programmatic configurations get the same checks as the
    /// environment.
    ///
    /// [`Runtime`]: crate::Runtime
    pub fn validate(&self) -> Result<(), MrtrError> {
        if self.audience.trim().is_empty() {
            return Err(config_error(
                "the audience (server identity) must not be empty".into(),
            ));
        }
        if self.ttl.is_zero() || self.ttl > MAX_TTL {
            return Err(config_error(format!(
                "the state TTL must be between 1 and {} seconds, not {:?}",
                MAX_TTL.as_secs(),
                self.ttl
            )));
        }
        if !(MIN_MAX_BYTES..=MAX_MAX_BYTES).contains(&self.max_bytes) {
            return Err(config_error(format!(
                "the requestState size cap must be between {MIN_MAX_BYTES} and {MAX_MAX_BYTES} bytes, not {}",
                self.max_bytes
            )));
        }
        Ok(())
    }
}

impl StateConfig {
    /// The sealer these settings describe, once they pass [`StateConfig::validate`].
    pub(crate) fn sealer(&self) -> Result<Sealer, MrtrError> {
        self.validate()?;
        Ok(Sealer::new(
            &self.keys,
            self.mode,
            self.format,
            &self.audience,
            self.ttl,
            self.max_bytes,
            self.clock.clone(),
        ))
    }
}

fn parse_bounded(name: &str, text: &str, min: u64, max: u64) -> Result<u64, MrtrError> {
    let value: u64 = text.trim().parse().map_err(|_| {
        config_error(format!(
            "{name} must be a whole number between {min} and {max}, not `{}`",
            text.trim()
        ))
    })?;
    if !(min..=max).contains(&value) {
        return Err(config_error(format!(
            "{name} must be between {min} and {max}, not {value}"
        )));
    }
    Ok(value)
}
