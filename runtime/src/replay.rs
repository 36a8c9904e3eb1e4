//! Single use for resumed steps, and idempotency keys for user backends.
//!
//! A sealed continuation is a bearer token until it expires: the spec's bindings (principal,
//! request digest, TTL) limit who can replay it and for how long, but not how often (2026-07-28
//! MRTR S5). Two tools close that gap:
//!
//! - [`IdempotencyKey`]: the same for every presentation of one token, so a backend that
//!   records it can turn a repeated round into a no-op ("charge once per key");
//! - [`ReplayGuard`]: refuses a second presentation. [`InMemoryReplayGuard`] does so for one
//!   process; a fleet needs a shared store: `RedisReplayGuard` (feature `redis`, module
//!   `replay_redis`).
//!
//! A presentation first takes its continuation for a short **lease**; once the round has
//! answered, the continuation is **spent** until the token expires. A lease that runs out
//! without being spent means the round's instance died before it answered: the next
//! presentation takes it over and the round runs again. Rounds are therefore at least once
//! (a crash cannot strand a dialogue), never concurrent within a lease, and a backend that
//! records the round's [`IdempotencyKey`] with its effect makes each effect happen once.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::seal::Clock;
pub use crate::seal::IdempotencyKey;
use crate::unpoisoned;

/// How long a round may hold its continuation before another presentation may take it over,
/// unless a guard is configured otherwise: longer than any round should take (a round that
/// outlives its lease may run beside its takeover), short enough that a client retrying after
/// a crash is not kept waiting long.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Records which continuations are being answered (leased) or were answered (spent).
///
/// Asynchronous because a guard shared by a fleet lives behind the network; the round's body
/// runs only once [`ReplayGuard::claim`] has resolved to [`Claim::Taken`]. The runtime then
/// calls exactly one of [`ReplayGuard::spend`] (the round answered) or
/// [`ReplayGuard::release`] (it stopped before the handler's body ran), or neither when the
/// round never finished (the instance died, the call was dropped): the lease runs out.
pub trait ReplayGuard: Send + Sync + 'static {
    /// Takes `key` for one lease unless it is leased or spent. `Err` when the store cannot say
    /// (the round is refused, nothing runs).
    fn claim(&self, key: IdempotencyKey, expires_at: u64) -> ClaimFuture<'_>;

    /// The round holding `key` answered: refuse `key` until `expires_at` (the token's expiry,
    /// seconds since the Unix epoch), after which the token is refused anyway.
    fn spend(&self, key: IdempotencyKey, expires_at: u64) -> SettleFuture<'_>;

    /// The round holding `key` stopped before the handler's body ran (say, a token of another
    /// build): the next presentation may take it at once.
    fn release(&self, key: IdempotencyKey) -> SettleFuture<'_>;
}

/// What a presentation of a continuation finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Nobody held it: this round holds it for the lease and runs.
    Taken,
    /// Another round holds its lease: it is still running, or its instance died less than a
    /// lease ago. Refused with -32603 "retry later"; a retry after the lease may take it over.
    InFlight,
    /// A round of it answered: refused with -32602 until the token expires.
    Spent,
}

/// What [`ReplayGuard::claim`] returns.
pub type ClaimFuture<'a> = BoxFuture<'a, Result<Claim, StoreUnavailable>>;

/// What [`ReplayGuard::spend`] and [`ReplayGuard::release`] return.
pub type SettleFuture<'a> = BoxFuture<'a, Result<(), StoreUnavailable>>;

/// The replay store could not answer: a claim reaches the client as -32603 and nothing runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the replay store is unavailable: {0}")]
pub struct StoreUnavailable(pub String);

/// A [`ReplayGuard`] for one process.
///
/// Memory stays bounded by the number of tokens presented within one TTL: a spent key is only
/// kept until its token expires, after which the token is refused by its expiry check anyway.
/// Behind a load balancer a replay can still reach another instance; use a shared store there.
pub struct InMemoryReplayGuard {
    clock: Clock,
    /// Whole seconds of `clock`, at least one.
    lease: u64,
    entries: Mutex<Entries>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Leased,
    Spent,
}

#[derive(Default)]
struct Entries {
    /// Each key's state and the second it ends at.
    by_key: HashMap<IdempotencyKey, (State, u64)>,
    /// The same entries ordered by end, so pruning touches only what is due.
    by_end: BTreeSet<(u64, IdempotencyKey)>,
}

impl Entries {
    fn prune(&mut self, now: u64) {
        while let Some(&(end, due)) = self.by_end.first() {
            if end > now {
                break;
            }
            self.by_end.pop_first();
            self.by_key.remove(&due);
        }
    }

    fn set(&mut self, key: IdempotencyKey, state: State, end: u64) {
        if let Some((_, old_end)) = self.by_key.insert(key, (state, end)) {
            self.by_end.remove(&(old_end, key));
        }
        self.by_end.insert((end, key));
    }

    fn remove(&mut self, key: &IdempotencyKey) {
        if let Some((_, end)) = self.by_key.remove(key) {
            self.by_end.remove(&(end, *key));
        }
    }
}

impl InMemoryReplayGuard {
    pub fn new() -> Self {
        Self::with_clock(Clock::system())
    }

    /// Use the same clock as the `StateConfig`, so expiry means the same thing to both.
    pub fn with_clock(clock: Clock) -> Self {
        InMemoryReplayGuard {
            clock,
            lease: DEFAULT_LEASE.as_secs(),
            entries: Mutex::new(Entries::default()),
        }
    }

    /// How long a round holds its continuation before another presentation may take it over
    /// ([`DEFAULT_LEASE`] unless set), rounded up to whole seconds of the clock.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.as_secs() + u64::from(lease.subsec_nanos() > 0);
        self.lease = self.lease.max(1);
        self
    }

    /// How many keys are remembered right now, leased or spent (ended ones are dropped on the
    /// next claim).
    pub fn len(&self) -> usize {
        self.lock().by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        unpoisoned::lock(&self.entries)
    }

    /// [`ReplayGuard::claim`], which in memory never waits and never fails.
    pub fn claim_now(&self, key: &IdempotencyKey) -> Claim {
        let now = self.clock.now();
        let mut entries = self.lock();
        entries.prune(now);
        match entries.by_key.get(key) {
            Some((State::Spent, _)) => Claim::Spent,
            Some((State::Leased, _)) => Claim::InFlight,
            None => {
                entries.set(*key, State::Leased, now + self.lease);
                Claim::Taken
            }
        }
    }

    /// [`ReplayGuard::spend`], at once.
    pub fn spend_now(&self, key: &IdempotencyKey, expires_at: u64) {
        let mut entries = self.lock();
        if expires_at > self.clock.now() {
            entries.set(*key, State::Spent, expires_at);
        } else {
            entries.remove(key);
        }
    }

    /// [`ReplayGuard::release`], at once. A spent key stays spent.
    pub fn release_now(&self, key: &IdempotencyKey) {
        let mut entries = self.lock();
        if matches!(entries.by_key.get(key), Some((State::Leased, _))) {
            entries.remove(key);
        }
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn claim(&self, key: IdempotencyKey, _expires_at: u64) -> ClaimFuture<'_> {
        Box::pin(std::future::ready(Ok(self.claim_now(&key))))
    }

    fn spend(&self, key: IdempotencyKey, expires_at: u64) -> SettleFuture<'_> {
        self.spend_now(&key, expires_at);
        Box::pin(std::future::ready(Ok(())))
    }

    fn release(&self, key: IdempotencyKey) -> SettleFuture<'_> {
        self.release_now(&key);
        Box::pin(std::future::ready(Ok(())))
    }
}

impl fmt::Debug for InMemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryReplayGuard")
            .field("lease_secs", &self.lease)
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

    fn guard(now: &Arc<AtomicU64>) -> InMemoryReplayGuard {
        InMemoryReplayGuard::with_clock(clock_at(now)).with_lease(Duration::from_secs(10))
    }

    #[test]
    fn a_held_lease_refuses_a_second_presentation_as_in_flight() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = guard(&now);
        let key = IdempotencyKey([1; 16]);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
        assert_eq!(guard.claim_now(&key), Claim::InFlight);
        now.store(1_009, Ordering::SeqCst);
        assert_eq!(guard.claim_now(&key), Claim::InFlight, "one second left");
        assert_eq!(guard.claim_now(&IdempotencyKey([2; 16])), Claim::Taken);
    }

    #[test]
    fn a_lease_that_ran_out_unspent_is_taken_over() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = guard(&now);
        let key = IdempotencyKey([1; 16]);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
        now.store(1_010, Ordering::SeqCst);
        assert_eq!(
            guard.claim_now(&key),
            Claim::Taken,
            "its round never answered"
        );
        assert_eq!(
            guard.claim_now(&key),
            Claim::InFlight,
            "the takeover holds it now"
        );
    }

    #[test]
    fn a_spent_key_stays_spent_until_its_token_expires() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = guard(&now);
        let key = IdempotencyKey([1; 16]);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
        guard.spend_now(&key, 1_300);
        assert_eq!(guard.claim_now(&key), Claim::Spent);
        now.store(1_299, Ordering::SeqCst);
        assert_eq!(guard.claim_now(&key), Claim::Spent, "long after the lease");
        guard.release_now(&key);
        assert_eq!(
            guard.claim_now(&key),
            Claim::Spent,
            "a release does not unspend"
        );
        now.store(1_300, Ordering::SeqCst);
        assert_eq!(
            guard.claim_now(&key),
            Claim::Taken,
            "the token itself has expired"
        );
    }

    #[test]
    fn a_released_lease_is_taken_at_once() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = guard(&now);
        let key = IdempotencyKey([1; 16]);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
        guard.release_now(&key);
        assert!(guard.is_empty());
        assert_eq!(guard.claim_now(&key), Claim::Taken);
    }

    #[test]
    fn ended_leases_and_expired_keys_are_forgotten() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard = guard(&now);
        for n in 0..100u8 {
            let key = IdempotencyKey([n; 16]);
            assert_eq!(guard.claim_now(&key), Claim::Taken);
            guard.spend_now(&key, 1_000 + 1 + u64::from(n));
        }
        assert_eq!(guard.claim_now(&IdempotencyKey([150; 16])), Claim::Taken);
        assert_eq!(guard.len(), 101);
        now.store(1_050, Ordering::SeqCst);
        assert_eq!(guard.claim_now(&IdempotencyKey([200; 16])), Claim::Taken);
        assert_eq!(
            guard.len(),
            51,
            "the 50 keys due by 1050 and the lease that ended at 1010 are dropped, the new lease is added"
        );
        now.store(2_000, Ordering::SeqCst);
        guard.spend_now(&IdempotencyKey([201; 16]), 1_999);
        assert_eq!(guard.claim_now(&IdempotencyKey([202; 16])), Claim::Taken);
        assert_eq!(
            guard.len(),
            1,
            "only the new lease; a key spent after its expiry is not kept"
        );
    }

    #[test]
    fn a_lease_is_at_least_one_whole_second() {
        let now = Arc::new(AtomicU64::new(1_000));
        let guard =
            InMemoryReplayGuard::with_clock(clock_at(&now)).with_lease(Duration::from_millis(1));
        let key = IdempotencyKey([1; 16]);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
        assert_eq!(guard.claim_now(&key), Claim::InFlight);
        now.store(1_001, Ordering::SeqCst);
        assert_eq!(guard.claim_now(&key), Claim::Taken);
    }

    #[test]
    fn idempotency_keys_print_as_hex() {
        assert_eq!(IdempotencyKey([0xab; 16]).to_string(), "ab".repeat(16));
    }
}
