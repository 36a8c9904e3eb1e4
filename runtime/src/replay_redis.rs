//! Single use shared by a fleet: a [`ReplayGuard`] on Redis (feature `redis`).
//!
//! One command per step of a continuation's life, each one network round trip:
//!
//! - claim: `SET <prefix><continuation id> leased NX PX <lease> GET`. Redis sets the key and
//!   answers nil to the first presentation of a token, on whichever instance it lands; to every
//!   other it answers the value already there (`leased`: in flight; `spent`) and sets nothing.
//!   A lease whose round never answered (its instance died) is dropped by Redis when it runs
//!   out, so the next presentation's `SET NX` takes the round over: no script, no clock read.
//! - spend, once the round has answered: `SET <key> spent EXAT <token expiry>`; Redis forgets
//!   the key when the token could not be opened any more anyway. The answer does not wait for
//!   it (see `crate::lease`).
//! - release, when the round stopped before the handler's body ran: `DEL <key>`.
//!
//! First rounds present no token and claim nothing.
//!
//! When Redis cannot answer a claim within the timeout, [`Unreachable`] decides: by default the
//! round is refused (-32603, nothing runs, the token is not spent, so the client may retry it);
//! [`Unreachable::FailOpen`] lets the round run unguarded, logged at warn, for deployments that
//! prefer availability to single use during a Redis outage. A spend Redis does not answer is
//! logged and left: the lease runs out, and until the token expires a replay would run the
//! round again (at least once; effects recorded under the round's key still happen once).

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{ExistenceCheck, SetExpiry, SetOptions};

use crate::replay::{
    Claim, ClaimFuture, DEFAULT_LEASE, IdempotencyKey, ReplayGuard, SettleFuture, StoreUnavailable,
};

/// What a claim does when Redis cannot answer in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Unreachable {
    /// Refuse the round (-32603, nothing runs): single use is never silently lost.
    #[default]
    FailClosed,
    /// Run the round as if the claim succeeded, logging a warning: a replay during the outage
    /// is not detected.
    FailOpen,
}

/// How to reach Redis and what to do without it.
#[derive(Clone)]
pub struct RedisGuardConfig {
    /// `redis://host:port/db` (or `rediss://`, `unix://`), as the `redis` crate reads it.
    pub url: String,
    /// Put before the continuation id (32 hex digits) to form the key.
    pub key_prefix: String,
    pub when_unreachable: Unreachable,
    /// Bounds connecting and each command, reconnects included: a claim never waits longer.
    pub timeout: Duration,
    /// How long a round holds its continuation before another presentation may take it over
    /// (whole milliseconds, at least one): longer than any round should take.
    pub lease: Duration,
}

impl RedisGuardConfig {
    pub const DEFAULT_PREFIX: &'static str = "mrtr:spent:";
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);

    pub fn new(url: impl Into<String>) -> Self {
        RedisGuardConfig {
            url: url.into(),
            key_prefix: Self::DEFAULT_PREFIX.to_owned(),
            when_unreachable: Unreachable::FailClosed,
            timeout: Self::DEFAULT_TIMEOUT,
            lease: DEFAULT_LEASE,
        }
    }

    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.key_prefix = prefix.into();
        self
    }

    pub fn when_unreachable(mut self, policy: Unreachable) -> Self {
        self.when_unreachable = policy;
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The URL without its credentials (`redis://:secret@host/` prints as `redis://…@host/`),
    /// for logs and errors.
    pub fn redacted_url(&self) -> String {
        match (self.url.find("://"), self.url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                format!("{}…{}", &self.url[..scheme + 3], &self.url[at..])
            }
            _ => self.url.clone(),
        }
    }

    /// Reads `MRTR_REDIS_URL` (required), `MRTR_REDIS_PREFIX`, `MRTR_REDIS_UNREACHABLE`
    /// (`fail-closed`, the default, or `fail-open`), `MRTR_REDIS_TIMEOUT_MS` and
    /// `MRTR_REDIS_LEASE_MS`.
    /// `Ok(None)` when `MRTR_REDIS_URL` is not set.
    pub fn from_env() -> Result<Option<Self>, String> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`RedisGuardConfig::from_env`] over any variable source.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        let Some(url) = var("MRTR_REDIS_URL").filter(|url| !url.trim().is_empty()) else {
            return Ok(None);
        };
        let mut config = Self::new(url.trim());
        if let Some(prefix) = var("MRTR_REDIS_PREFIX") {
            config.key_prefix = prefix;
        }
        if let Some(policy) = var("MRTR_REDIS_UNREACHABLE") {
            config.when_unreachable = match policy.trim() {
                "fail-closed" => Unreachable::FailClosed,
                "fail-open" => Unreachable::FailOpen,
                other => {
                    return Err(format!(
                        "MRTR_REDIS_UNREACHABLE must be `fail-closed` or `fail-open`, not `{other}`"
                    ));
                }
            };
        }
        if let Some(ms) = var("MRTR_REDIS_TIMEOUT_MS") {
            config.timeout = match ms.trim().parse::<u64>() {
                Ok(ms @ 1..=60_000) => Duration::from_millis(ms),
                _ => {
                    return Err(format!(
                        "MRTR_REDIS_TIMEOUT_MS must be a whole number of milliseconds between 1 and 60000, not `{}`",
                        ms.trim()
                    ));
                }
            };
        }
        if let Some(ms) = var("MRTR_REDIS_LEASE_MS") {
            config.lease = match ms.trim().parse::<u64>() {
                Ok(ms @ 1..=3_600_000) => Duration::from_millis(ms),
                _ => {
                    return Err(format!(
                        "MRTR_REDIS_LEASE_MS must be a whole number of milliseconds between 1 and 3600000, not `{}`",
                        ms.trim()
                    ));
                }
            };
        }
        Ok(Some(config))
    }
}

impl std::fmt::Debug for RedisGuardConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisGuardConfig")
            .field("url", &self.redacted_url())
            .field("key_prefix", &self.key_prefix)
            .field("when_unreachable", &self.when_unreachable)
            .field("timeout", &self.timeout)
            .field("lease", &self.lease)
            .finish()
    }
}

/// A [`ReplayGuard`] every instance of a fleet shares through one Redis.
///
/// Keeps one multiplexed connection, reconnecting in the background after Redis restarts; the
/// first connection is made on the first claim, so an instance starts while Redis is down.
#[derive(Clone)]
pub struct RedisReplayGuard {
    connection: ConnectionManager,
    config: RedisGuardConfig,
}

impl RedisReplayGuard {
    /// Must be called inside a tokio runtime (the connection lives on it). Fails only on a URL
    /// the client cannot read; an unreachable Redis is a claim-time matter.
    pub fn new(config: RedisGuardConfig) -> Result<Self, StoreUnavailable> {
        let client = redis::Client::open(config.url.as_str()).map_err(|e| {
            StoreUnavailable(format!("MRTR_REDIS_URL `{}`: {e}", config.redacted_url()))
        })?;
        let manager = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout))
            // Each failed command starts a fresh reconnect; retrying inside one would only
            // hold claims past their timeout.
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(config.timeout);
        let connection = ConnectionManager::new_lazy_with_config(client, manager)
            .map_err(|e| StoreUnavailable(format!("cannot set up the Redis connection: {e}")))?;
        Ok(RedisReplayGuard { connection, config })
    }

    pub fn config(&self) -> &RedisGuardConfig {
        &self.config
    }

    /// The Redis key a continuation is leased and spent under.
    pub fn key_of(&self, key: &IdempotencyKey) -> String {
        format!("{}{key}", self.config.key_prefix)
    }

    /// Runs one command within the timeout.
    async fn query<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, String> {
        let mut connection = self.connection.clone();
        let reply = tokio::time::timeout(
            self.config.timeout,
            command.query_async::<T>(&mut connection),
        )
        .await;
        match reply {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer within {:?}", self.config.timeout)),
        }
    }

    fn unavailable(&self, reason: String) -> StoreUnavailable {
        StoreUnavailable(format!("Redis at {}: {reason}", self.config.redacted_url()))
    }

    async fn take(&self, key: IdempotencyKey) -> Result<Claim, String> {
        let lease_ms = u64::try_from(self.config.lease.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let options = SetOptions::default()
            .conditional_set(ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(lease_ms))
            .get(true);
        let mut command = redis::cmd("SET");
        command.arg(self.key_of(&key)).arg(LEASED).arg(options);
        Ok(match self.query::<Option<String>>(command).await? {
            None => Claim::Taken,
            Some(held) if held == LEASED => Claim::InFlight,
            // `spent`, or the `1` an earlier release of this guard claimed with.
            Some(_) => Claim::Spent,
        })
    }
}

/// The values a key holds: a round is answering it, or one has.
const LEASED: &str = "leased";
const SPENT: &str = "spent";

impl ReplayGuard for RedisReplayGuard {
    fn claim(&self, key: IdempotencyKey, _expires_at: u64) -> ClaimFuture<'_> {
        Box::pin(async move {
            match self.take(key).await {
                Ok(claim) => Ok(claim),
                Err(reason) => match self.config.when_unreachable {
                    Unreachable::FailClosed => Err(self.unavailable(reason)),
                    Unreachable::FailOpen => {
                        tracing::warn!(target: "mrtr", url = %self.config.redacted_url(), %reason, "replay store unreachable: round runs without the single-use check (fail open)");
                        Ok(Claim::Taken)
                    }
                },
            }
        })
    }

    fn spend(&self, key: IdempotencyKey, expires_at: u64) -> SettleFuture<'_> {
        let options = SetOptions::default().with_expiration(SetExpiry::EXAT(expires_at.max(1)));
        let mut command = redis::cmd("SET");
        command.arg(self.key_of(&key)).arg(SPENT).arg(options);
        Box::pin(async move {
            self.query::<Option<String>>(command)
                .await
                .map(drop)
                .map_err(|reason| self.unavailable(reason))
        })
    }

    fn release(&self, key: IdempotencyKey) -> SettleFuture<'_> {
        let mut command = redis::cmd("DEL");
        command.arg(self.key_of(&key));
        Box::pin(async move {
            self.query::<u32>(command)
                .await
                .map(drop)
                .map_err(|reason| self.unavailable(reason))
        })
    }
}

impl std::fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn without_a_url_there_is_no_guard() {
        assert!(RedisGuardConfig::from_vars(vars(&[])).unwrap().is_none());
    }

    #[test]
    fn the_environment_sets_prefix_policy_and_timeout_with_safe_defaults() {
        let config = RedisGuardConfig::from_vars(vars(&[("MRTR_REDIS_URL", "redis://r:1/")]))
            .unwrap()
            .unwrap();
        assert_eq!(config.key_prefix, RedisGuardConfig::DEFAULT_PREFIX);
        assert_eq!(config.when_unreachable, Unreachable::FailClosed);
        assert_eq!(config.timeout, RedisGuardConfig::DEFAULT_TIMEOUT);
        assert_eq!(config.lease, DEFAULT_LEASE);
        let config = RedisGuardConfig::from_vars(vars(&[
            ("MRTR_REDIS_URL", "redis://r:1/"),
            ("MRTR_REDIS_PREFIX", "svc:"),
            ("MRTR_REDIS_UNREACHABLE", "fail-open"),
            ("MRTR_REDIS_TIMEOUT_MS", "40"),
            ("MRTR_REDIS_LEASE_MS", "2500"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(config.lease, Duration::from_millis(2500));
        assert_eq!(config.key_prefix, "svc:");
        assert_eq!(config.when_unreachable, Unreachable::FailOpen);
        assert_eq!(config.timeout, Duration::from_millis(40));
    }

    #[test]
    fn credentials_never_reach_a_log() {
        let config = RedisGuardConfig::new("redis://user:s3cret@10.0.0.5:6379/0");
        assert_eq!(config.redacted_url(), "redis://…@10.0.0.5:6379/0");
        assert!(!format!("{config:?}").contains("s3cret"));
        assert_eq!(
            RedisGuardConfig::new("redis://r:1/").redacted_url(),
            "redis://r:1/"
        );
    }

    #[test]
    fn a_misspelt_policy_or_timeout_is_an_error_not_a_default() {
        for bad in [
            &[
                ("MRTR_REDIS_URL", "redis://r/"),
                ("MRTR_REDIS_UNREACHABLE", "open"),
            ][..],
            &[
                ("MRTR_REDIS_URL", "redis://r/"),
                ("MRTR_REDIS_TIMEOUT_MS", "0"),
            ][..],
            &[
                ("MRTR_REDIS_URL", "redis://r/"),
                ("MRTR_REDIS_TIMEOUT_MS", "soon"),
            ][..],
            &[
                ("MRTR_REDIS_URL", "redis://r/"),
                ("MRTR_REDIS_LEASE_MS", "0"),
            ][..],
        ] {
            let owned: Vec<(String, String)> = bad
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            let lookup = |name: &str| {
                owned
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            };
            assert!(RedisGuardConfig::from_vars(lookup).is_err(), "{bad:?}");
        }
    }
}
