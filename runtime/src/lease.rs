//! A resumed round's hold on its continuation under single use, from the claim to the end of
//! the round: spent once the round's response leaves, released when the round stopped before
//! the handler's body ran, left to run out when the round never finished (see
//! [`crate::replay`]).
//!
//! The claim is made deep inside the lowered body (`ToolCall::open`) and the round ends in
//! `respond`, outside it; the lease travels between the two in a task-local scope that
//! `respond` opens around the body, so generated code never sees it. Behind the HTTP layer
//! `mrtr::delivery::DeliveryLayer`, `respond` hands the lease on to the response (a
//! [`Delivery`] the layer put in the request's extensions), which spends it once the
//! connection has taken the whole response body.

use std::cell::RefCell;
use std::future::Future;
use std::sync::{Arc, Mutex};

use futures::FutureExt;

use crate::replay::{IdempotencyKey, ReplayGuard};
use crate::unpoisoned;

/// A continuation this round has taken for the guard's lease.
pub(crate) struct Lease {
    guard: Arc<dyn ReplayGuard>,
    key: IdempotencyKey,
    expires_at: u64,
}

/// What a round in scope holds: its lease, and where its response will leave, if known.
#[derive(Default)]
struct Held {
    lease: Option<Lease>,
    delivery: Option<Delivery>,
}

tokio::task_local! {
    static ROUND: RefCell<Held>;
}

/// Runs one round's body with a place for its lease.
pub(crate) fn scope<F: Future>(body: F) -> impl Future<Output = F::Output> {
    ROUND.scope(RefCell::default(), body)
}

/// Where a request's response leaves: holds the round's lease from the moment the response
/// exists until the transport takes it, then spends it. An instance killed in between has not
/// spent it, so the client's retry takes the round over once the lease runs out, instead of
/// finding the continuation spent by an answer that never reached it.
#[derive(Clone, Default)]
pub struct Delivery(Arc<Mutex<Option<Lease>>>);

impl Delivery {
    fn deposit(&self, lease: Lease) {
        *unpoisoned::lock(&self.0) = Some(lease);
    }

    /// The response is leaving: spend the lease it carries, if any (once).
    #[cfg(any(feature = "http", test))]
    pub(crate) fn delivered(&self) {
        let lease = unpoisoned::lock(&self.0).take();
        if let Some(lease) = lease {
            lease.spend();
        }
    }
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Delivery")
    }
}

impl Lease {
    pub(crate) fn new(guard: Arc<dyn ReplayGuard>, key: IdempotencyKey, expires_at: u64) -> Self {
        Lease {
            guard,
            key,
            expires_at,
        }
    }

    /// Keeps the lease until the round ends; `delivery` is where its response will leave, if
    /// the transport says. Outside a round's scope (nothing in `mrtr` opens a round so, but a
    /// caller of the public `open` could) the continuation is spent at once: single use without
    /// the crash recovery.
    pub(crate) fn hold(self, delivery: Option<Delivery>) {
        let mut lease = Some(self);
        let _ = ROUND.try_with(|held| {
            *held.borrow_mut() = Held {
                lease: lease.take(),
                delivery,
            }
        });
        if let Some(lease) = lease {
            lease.spend();
        }
    }

    /// The round answered (its result, its error, `input_required`, or a runtime failure after
    /// its body started): no presentation of this token may run again.
    ///
    /// The answer does not wait for the store: until the spend lands, the lease already refuses
    /// every other presentation, so waiting would add a round trip to every resumed round and
    /// protect nothing more. The spend is polled once here, which hands the command to the
    /// store's connection ahead of anything this instance sends later (so a duplicate on this
    /// instance is always refused as spent), and finishes as a task of its own. Should the
    /// instance die, or the store fail, before it lands, the lease runs out and a later
    /// presentation runs the round again: at least once, as after any crash mid-round.
    pub(crate) fn spend(self) {
        let Lease {
            guard,
            key,
            expires_at,
        } = self;
        settle(async move {
            if let Err(error) = guard.spend(key, expires_at).await {
                tracing::warn!(target: "mrtr", %key, %error, "cannot mark requestState spent: once its lease runs out, a replay of it would run the round again");
            }
        });
    }

    /// The round stopped before the handler's body ran: nothing of it ran, so the next
    /// presentation may take it at once instead of waiting for the lease.
    pub(crate) fn release(self) {
        let Lease { guard, key, .. } = self;
        settle(async move {
            if let Err(error) = guard.release(key).await {
                tracing::warn!(target: "mrtr", %key, %error, "cannot release requestState: it is refused as in flight until its lease runs out");
            }
        });
    }
}

/// Releases the lease of the round in scope, if it holds one (`Io::restore` refused the
/// continuation).
pub(crate) fn release_held() {
    if let Some(lease) = take_held().0 {
        lease.release();
    }
}

/// The round in scope has its response: its lease, if it still holds one, is spent when the
/// response leaves (behind the delivery layer) or now.
pub(crate) fn spend_held() {
    match take_held() {
        (Some(lease), Some(delivery)) => delivery.deposit(lease),
        (Some(lease), None) => lease.spend(),
        (None, _) => {}
    }
}

fn take_held() -> (Option<Lease>, Option<Delivery>) {
    ROUND
        .try_with(|held| {
            let held = std::mem::take(&mut *held.borrow_mut());
            (held.lease, held.delivery)
        })
        .unwrap_or_default()
}

/// Polls `settling` once and lets it finish on its own (see [`Lease::spend`]).
fn settle(settling: impl Future<Output = ()> + Send + 'static) {
    let mut settling = Box::pin(settling);
    if (&mut settling).now_or_never().is_some() {
        return;
    }
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn(settling);
        }
        Err(_) => {
            tracing::warn!(target: "mrtr", "no tokio runtime to finish settling a requestState lease; it runs out instead")
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;

    use super::*;
    use crate::replay::{Claim, InMemoryReplayGuard};

    const KEY: IdempotencyKey = IdempotencyKey([3; 16]);

    fn taken(guard: &Arc<InMemoryReplayGuard>) -> Lease {
        assert_eq!(guard.claim_now(&KEY), Claim::Taken);
        Lease::new(guard.clone(), KEY, u64::MAX)
    }

    #[test]
    fn a_held_lease_is_spent_when_the_round_answers() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        block_on(scope(async {
            taken(&guard).hold(None);
            assert_eq!(
                guard.claim_now(&KEY),
                Claim::InFlight,
                "held while the round runs"
            );
            spend_held();
        }));
        assert_eq!(guard.claim_now(&KEY), Claim::Spent);
    }

    #[test]
    fn a_held_lease_given_back_can_be_taken_at_once() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        block_on(scope(async {
            taken(&guard).hold(None);
            release_held();
            spend_held();
        }));
        assert_eq!(
            guard.claim_now(&KEY),
            Claim::Taken,
            "given back before the body ran; nothing left to spend"
        );
    }

    #[test]
    fn a_round_dropped_unfinished_leaves_its_lease_to_run_out() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        let round = scope(async {
            taken(&guard).hold(None);
            futures::future::pending::<()>().await;
        });
        let mut round = Box::pin(round);
        assert!((&mut round).now_or_never().is_none());
        drop(round);
        assert_eq!(guard.claim_now(&KEY), Claim::InFlight);
    }

    #[test]
    fn behind_a_delivery_the_lease_is_spent_when_the_response_leaves() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        let delivery = Delivery::default();
        block_on(scope(async {
            taken(&guard).hold(Some(delivery.clone()));
            spend_held();
        }));
        assert_eq!(
            guard.claim_now(&KEY),
            Claim::InFlight,
            "answered, but the answer has not left"
        );
        delivery.delivered();
        assert_eq!(guard.claim_now(&KEY), Claim::Spent);
    }

    #[test]
    fn outside_a_round_a_lease_is_spent_at_once() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        taken(&guard).hold(None);
        assert_eq!(guard.claim_now(&KEY), Claim::Spent);
    }
}
