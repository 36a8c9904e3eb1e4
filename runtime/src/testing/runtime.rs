//! The mrtr runtime a test server runs with: a fixed sealing key, so a token minted by one server
//! instance opens on another built with the same key, as behind a load balancer; and a clock the
//! test can move, so expiry is tested without sleeping.
//!
//! This is the kit's one use of the clock injection in [`crate::config`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::Runtime;
use crate::config::{Clock, KeyRing, StateConfig, StateKey};

/// The kit's key: fixed, so every instance built from it opens every other's tokens. Never use
/// it outside tests.
pub const TEST_KEY: [u8; 32] = *b"mrtr behaviour harness state key";

/// A settable clock, in seconds since the Unix epoch. Clones share the time.
#[derive(Clone, Debug)]
pub struct TestClock(Arc<AtomicU64>);

impl TestClock {
    /// A clock standing at `now`.
    pub fn at(now: u64) -> Self {
        TestClock(Arc::new(AtomicU64::new(now)))
    }

    /// A clock standing at the current time.
    pub fn now() -> Self {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        TestClock::at(now)
    }

    /// Moves the clock forward.
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }

    fn clock(&self) -> Clock {
        let now = self.0.clone();
        Clock::from_fn(move || now.load(Ordering::SeqCst))
    }
}

/// A runtime sealing for `audience` with the kit's fixed key and the system clock.
pub fn test_runtime(audience: &str) -> Arc<Runtime> {
    runtime_with(audience, &TEST_KEY, None)
}

/// A runtime sealing for `audience` with `key` and, if given, a test clock.
pub fn runtime_with(audience: &str, key: &[u8; 32], clock: Option<&TestClock>) -> Arc<Runtime> {
    Arc::new(runtime_config(audience, key, clock))
}

/// The same runtime with single-use tokens: every continuation can be redeemed once.
pub fn single_use_runtime(audience: &str) -> Arc<Runtime> {
    let guard = Arc::new(crate::replay::InMemoryReplayGuard::new());
    Arc::new(runtime_config(audience, &TEST_KEY, None).with_replay_guard(guard))
}

/// A runtime with the harness's key, single use checked by `guard` (e.g. one on Redis).
pub fn guarded_runtime(audience: &str, guard: Arc<dyn crate::replay::ReplayGuard>) -> Arc<Runtime> {
    Arc::new(runtime_config(audience, &TEST_KEY, None).with_replay_guard(guard))
}

fn runtime_config(audience: &str, key: &[u8; 32], clock: Option<&TestClock>) -> Runtime {
    let key = StateKey::new("t1", key.to_vec()).expect("a 32-byte key with a valid id");
    let mut config = StateConfig::new(audience, KeyRing::new(key));
    if let Some(clock) = clock {
        config = config.with_clock(clock.clock());
    }
    Runtime::new(config).expect("the kit's state configuration is valid")
}
