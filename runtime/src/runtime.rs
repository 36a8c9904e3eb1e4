//! The process-wide settings a ported server runs with.

use std::sync::{Arc, OnceLock, RwLock};

use crate::config::StateConfig;
use crate::error::MrtrError;
use crate::limits::Limits;
use crate::replay::ReplayGuard;
use crate::seal::Sealer;
use crate::unpoisoned;

/// Sealing keys, limits and the optional replay guard, shared by every handler.
///
/// Install one at start-up with [`Runtime::install`]; a request may override it by carrying an
/// `Arc<Runtime>` in its rmcp extensions (useful to run two differently keyed servers in one
/// process, as the tests do).
#[derive(Clone)]
pub struct Runtime {
    pub(crate) sealer: Sealer,
    pub(crate) limits: Limits,
    pub(crate) replay: Option<Arc<dyn ReplayGuard>>,
    /// How often a legacy client may answer one ask with content that does not decode before
    /// the call fails.
    pub(crate) live_attempts: u32,
}

static INSTALLED: OnceLock<RwLock<Option<Arc<Runtime>>>> = OnceLock::new();

impl Runtime {
    pub fn new(config: StateConfig) -> Result<Self, MrtrError> {
        Ok(Self {
            sealer: config.sealer()?,
            limits: Limits::default(),
            replay: None,
            live_attempts: 3,
        })
    }

    /// Reads `MRTR_STATE_KEYS`, `MRTR_STATE_TTL`, `MRTR_STATE_MAX_BYTES`, `MRTR_STATE_MODE` and
    /// `MRTR_STATE_FORMAT`.
    pub fn from_env(audience: impl Into<String>) -> Result<Self, MrtrError> {
        Self::new(StateConfig::from_env(audience)?)
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a continuation this runtime seals can be presented: what anything keyed by a
    /// round (an idempotency record, a cache of a step's work) must remember it for.
    pub fn state_ttl(&self) -> std::time::Duration {
        self.sealer.ttl()
    }

    /// The bounds on `inputResponses`; hand them to [`crate::prescan::Prescan::new`] so the
    /// pre-scan refuses what this runtime would.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether continuation tokens are single-use (a replay guard is set): only then does a
    /// response's delivery matter ([`crate::delivery::DeliveryLayer`]).
    pub fn is_single_use(&self) -> bool {
        self.replay.is_some()
    }

    /// The runtime [`Runtime::install`] made the default, if any.
    pub fn installed() -> Option<Arc<Runtime>> {
        unpoisoned::read(INSTALLED.get()?).clone()
    }

    /// Makes every continuation token single-use.
    pub fn with_replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.replay = Some(guard);
        self
    }

    /// Makes this the runtime of every request that does not carry its own.
    pub fn install(self) -> Arc<Runtime> {
        let runtime = Arc::new(self);
        let slot = INSTALLED.get_or_init(|| RwLock::new(None));
        *unpoisoned::write(slot) = Some(runtime.clone());
        runtime
    }

    /// The runtime for one request: its own override, else the installed one, else one read
    /// from the environment (installed on first use).
    pub(crate) fn for_request(
        extensions: &rmcp::model::Extensions,
    ) -> Result<Arc<Runtime>, MrtrError> {
        if let Some(runtime) = extensions.get::<Arc<Runtime>>() {
            return Ok(runtime.clone());
        }
        if let Some(runtime) = Self::installed() {
            return Ok(runtime);
        }
        Self::install_from_env()
    }

    /// Once per process, out of every round's way.
    #[cold]
    #[inline(never)]
    fn install_from_env() -> Result<Arc<Runtime>, MrtrError> {
        let audience = std::env::var("MRTR_AUDIENCE").unwrap_or_else(|_| "mrtr".to_owned());
        Ok(Runtime::from_env(audience)?.install())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::{KeyRing, StateKey};
    use crate::replay::InMemoryReplayGuard;

    fn runtime(ttl: Duration) -> Runtime {
        let key = StateKey::generate("k1").expect("the OS has randomness");
        Runtime::new(StateConfig::new("runtime-tests", KeyRing::new(key)).with_ttl(ttl))
            .expect("a valid configuration")
    }

    #[test]
    fn only_a_runtime_with_a_replay_guard_is_single_use() {
        assert!(!runtime(Duration::from_secs(60)).is_single_use());
        let guarded = runtime(Duration::from_secs(60))
            .with_replay_guard(Arc::new(InMemoryReplayGuard::new()));
        assert!(guarded.is_single_use());
    }

    #[test]
    fn a_runtime_names_the_ttl_of_what_it_seals() {
        // Not installed: the process-wide default belongs to the tests that serve requests.
        assert_eq!(
            runtime(Duration::from_secs(42)).state_ttl(),
            Duration::from_secs(42)
        );
    }
}
