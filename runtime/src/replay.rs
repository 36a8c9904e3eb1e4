//! Single use for resumed steps, and idempotency keys for user backends.
//!
//! OWNER: helper A.

/// Stable per continuation token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(pub [u8; 16]);

/// Records which continuation tokens were already redeemed.
pub trait ReplayGuard: Send + Sync + 'static {
    /// `true` the first time `key` is claimed; `false` for every later claim before `expires_at`.
    fn claim(&self, key: &IdempotencyKey, expires_at: u64) -> bool;
}
