//! Single use for resumed steps, and idempotency keys for user backends.
//!
//! A sealed continuation is a bearer token until it expires: the spec's bindings (principal,
//! request digest, TTL) limit who can replay it and for how long, but not how often (2026-07-28
//! MRTR S5). Two tools close that gap:
//!
//! - [`IdempotencyKey`]: the same for every presentation of one token, so a backend that
//!   records it can turn a duplicated retry into a no-op ("charge once per key");
//! - [`ReplayGuard`]: refuses the second presentation outright. [`InMemoryReplayGuard`] does so
//!   for one process; a fleet needs a shared store: `RedisReplayGuard` (feature `redis`,
//!   module `replay_redis`) claims with `SET key NX EXAT expires_at`.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Mutex;

use futures::future::BoxFuture;

use crate::seal::Clock;
pub use crate::seal::IdempotencyKey;

/// Records which continuation tokens were already redeemed.
///
/// Asynchronous because a guard shared by a fleet lives behind the network; the round's body
/// runs only once the claim has resolved to `Ok(true)`.
pub trait ReplayGuard: Send + Sync + 'static {
    /// `Ok(true)` the first time `key` is claimed; `Ok(false)` for every later claim before
    /// `expires_at`; `Err` when the store cannot say (the round is refused, nothing runs).
    fn claim(&self, key: IdempotencyKey, expires_at: u64) -> Claim<'_>;
}

/// What [`ReplayGuard::claim`] returns.
pub type Claim<'a> = BoxFuture<'a, Result<bool, StoreUnavailable>>;

/// The replay store could not answer a claim: reaches the client as -32603 and nothing runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the replay store is unavailable: {0}")]
pub struct StoreUnavailable(pub String);

/// A [`ReplayGuard`] for one process.
///
/// Memory stays bounded by the number of tokens redeemed within one TTL: a key is only kept
/// until its token expires, after which the token is refused by its expiry check anyway. Behind
/// a load balancer a replay can still reach another instance; use a shared store there.
pub struct InMemoryReplayGuard {
    clock: Clock,
    claimed: Mutex<Claimed>,
}

#[derive(Default)]
struct Claimed {
    expiry_of: HashMap<IdempotencyKey, u64>,
    /// The same entries ordered by expiry, so pruning touches only what is due.
    by_expiry: BTreeSet<(u64, IdempotencyKey)>,
}

impl InMemoryReplayGuard {
    pub fn new() -> Self {
        Self::with_clock(Clock::system())
    }

    /// Use the same clock as the `StateConfig`, so expiry means the same thing to both.
    pub fn with_clock(clock: Clock) -> Self {
        InMemoryReplayGuard {
            clock,
            claimed: Mutex::new(Claimed::default()),
        }
    }

    /// How many keys are remembered right now (expired ones are dropped on the next claim).
    pub fn len(&self) -> usize {
        self.lock().expiry_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Claimed> {
        // The map stays consistent even if a holder panicked: every update is one insert pair.
        self.claimed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn claim(&self, key: IdempotencyKey, expires_at: u64) -> Claim<'_> {
        Box::pin(std::future::ready(Ok(self.claim_now(&key, expires_at))))
    }
}

impl InMemoryReplayGuard {
    /// The claim itself: in memory it never waits and never fails.
    pub fn claim_now(&self, key: &IdempotencyKey, expires_at: u64) -> bool {
        let now = self.clock.now();
        let mut claimed = self.lock();
        while let Some(&(expiry, due)) = claimed.by_expiry.first() {
            if expiry > now {
                break;
            }
            claimed.by_expiry.pop_first();
            claimed.expiry_of.remove(&due);
        }
        if claimed.expiry_of.contains_key(key) {
            return false;
        }
        if expires_at > now {
            claimed.expiry_of.insert(*key, expires_at);
            claimed.by_expiry.insert((expires_at, *key));
        }
        true
    }
}

impl fmt::Debug for InMemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryReplayGuard")
            .field("remembered", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    fn clock_at(now: &Arc<AtomicU64>) -> Clock {
        let now = now.clone();
        Clock::from_fn(move || now.load(Ordering::SeqCst))
    }

    #[test]
    fn a_key_is_claimed_once_until_it_expires() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = InMemoryReplayGuard::with_clock(clock_at(&now));
        let key = IdempotencyKey([1; 16]);
        assert!(guard.claim_now(&key, 1_300));
        assert!(!guard.claim_now(&key, 1_300));
        assert!(guard.claim_now(&IdempotencyKey([2; 16]), 1_300));
        now.store(1_299, Ordering::SeqCst);
        assert!(!guard.claim_now(&key, 1_300));
    }

    #[test]
    fn expired_keys_are_forgotten() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = InMemoryReplayGuard::with_clock(clock_at(&now));
        for n in 0..100u8 {
            assert!(guard.claim_now(&IdempotencyKey([n; 16]), 1_000 + 1 + u64::from(n)));
        }
        assert_eq!(guard.len(), 100);
        now.store(1_050, Ordering::SeqCst);
        assert!(guard.claim_now(&IdempotencyKey([200; 16]), 1_400));
        assert_eq!(
            guard.len(),
            51,
            "the 50 keys due by 1050 are dropped, the new one is added"
        );
        now.store(2_000, Ordering::SeqCst);
        assert!(guard.claim_now(&IdempotencyKey([201; 16]), 1_999));
        assert!(
            guard.is_empty(),
            "a key claimed after its expiry is not remembered"
        );
    }

    #[test]
    fn idempotency_keys_print_as_hex() {
        assert_eq!(IdempotencyKey([0xab; 16]).to_string(), "ab".repeat(16));
    }
}
