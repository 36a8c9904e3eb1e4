//! What an operator sees of each round: a structured `tracing` event (target `mrtr`) and
//! counters through the [`metrics`] facade, which cost nothing until the server installs a
//! recorder (e.g. a Prometheus exporter).
//!
//! Each round's own events are at debug, as per-request events usually are: at info a busy
//! server formatted and wrote two lines per round, about 8% of the instructions of a whole
//! 2026-07-28 flow in the example, and flooded its log. Rejections stay at warn.
//!
//! | counter | labels | counts |
//! |---|---|---|
//! | `mrtr_rounds_total` | `handler`, `era` | rounds opened (first rounds and resumptions) |
//! | `mrtr_suspensions_total` | `handler`, `step` | rounds that ended with `input_required` |
//! | `mrtr_completions_total` | `kind` | rounds that ended with the handler's own result |
//! | `mrtr_rejections_total` | `reason` | `requestState` refused, by [`Rejection`] |

use std::fmt;

mod counter_keys;

/// Why a `requestState` was refused, in categories an operator can act on: `unknown_kid`,
/// `bad_tag` and `expired` after a rotation point at the rotation; `wrong_binding`,
/// `wrong_principal`, `wrong_audience` and `spent` at a client or an attacker; `in_flight` at a
/// duplicate racing its original, or at a retry after an instance died mid-round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    TooLarge,
    Malformed,
    UnknownKid,
    BadTag,
    Expired,
    WrongAudience,
    WrongBinding,
    WrongPrincipal,
    /// Another build of the handler (layout fingerprint, step or carried locals).
    OtherBuild,
    /// Already redeemed under single use.
    Spent,
    /// Leased by another round under single use (refused with "retry later", not -32602).
    InFlight,
    Other,
}

impl Rejection {
    pub fn as_str(self) -> &'static str {
        match self {
            Rejection::TooLarge => "too_large",
            Rejection::Malformed => "malformed",
            Rejection::UnknownKid => "unknown_kid",
            Rejection::BadTag => "bad_tag",
            Rejection::Expired => "expired",
            Rejection::WrongAudience => "wrong_audience",
            Rejection::WrongBinding => "wrong_binding",
            Rejection::WrongPrincipal => "wrong_principal",
            Rejection::OtherBuild => "other_build",
            Rejection::Spent => "spent",
            Rejection::InFlight => "in_flight",
            Rejection::Other => "other",
        }
    }

    /// The category of a rejection reason as the runtime words it (`seal::Sealer::open`,
    /// `Io::restore`, the replay check); kept beside those messages by the tests below.
    pub fn of(reason: &str) -> Rejection {
        const PREFIXES: &[(&str, Rejection)] = &[
            ("format:", Rejection::Malformed),
            ("claims:", Rejection::Malformed),
            ("unknown key id", Rejection::UnknownKid),
            ("tag does not verify", Rejection::BadTag),
            ("expired at", Rejection::Expired),
            ("minted for another audience", Rejection::WrongAudience),
            ("bound to another request", Rejection::WrongBinding),
            ("bound to another principal", Rejection::WrongPrincipal),
            ("bound to a principal", Rejection::WrongPrincipal),
            ("minted without a principal", Rejection::WrongPrincipal),
            ("layout fingerprint", Rejection::OtherBuild),
            ("unknown step", Rejection::OtherBuild),
            ("carried local", Rejection::OtherBuild),
            ("continuation already redeemed", Rejection::Spent),
        ];
        if let Some((_, category)) = PREFIXES.iter().find(|(p, _)| reason.starts_with(p)) {
            return *category;
        }
        if reason.contains("over the cap of") {
            return Rejection::TooLarge;
        }
        if reason.contains("unread bytes after the carried locals") {
            return Rejection::OtherBuild;
        }
        Rejection::Other
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The keys of a map as a list, formatted only if the event is logged: the key lists of
/// `round` and `round suspended` are built on every round, and logged on few.
pub(crate) struct Keys<'a, V>(pub &'a std::collections::BTreeMap<String, V>);

impl<V> fmt::Debug for Keys<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

pub(crate) const NO_KEYS: [&str; 0] = [];

/// A round was opened: a first round (`resumed_from` is `None`) or a resumption.
pub(crate) fn round_opened(
    handler: &'static str,
    era: &'static str,
    resumed_from: Option<&str>,
    answered: &dyn fmt::Debug,
) {
    tracing::debug!(target: "mrtr", handler, era, resumed_from = resumed_from.unwrap_or("start"), answered = ?answered, "round");
    counter_keys::increment("mrtr_rounds_total", [("handler", handler), ("era", era)]);
}

/// A round ended with `input_required` at `step`, asking `keys`.
pub(crate) fn suspended(handler: &'static str, step: &'static str, keys: &dyn fmt::Debug) {
    tracing::debug!(target: "mrtr", handler, suspended_at = step, asked = ?keys, "round suspended");
    counter_keys::increment(
        "mrtr_suspensions_total",
        [("handler", handler), ("step", step)],
    );
}

/// A round ended with the handler's own result (`kind`: `tool`, `prompt` or `resource`).
pub(crate) fn completed(kind: &'static str) {
    counter_keys::increment("mrtr_completions_total", [("kind", kind)]);
}

/// A `requestState` was refused; `reason` is the precise one, for the log only.
pub(crate) fn rejected(reason: &str) -> Rejection {
    let category = Rejection::of(reason);
    tracing::warn!(target: "mrtr", reason_category = category.as_str(), %reason, "requestState rejected");
    metrics::counter!("mrtr_rejections_total", "reason" => category.as_str()).increment(1);
    category
}

/// A `requestState` was refused because another round holds its lease.
pub(crate) fn in_flight(reason: &str) {
    let category = Rejection::InFlight.as_str();
    tracing::info!(target: "mrtr", reason_category = category, %reason, "requestState in flight elsewhere: retry later");
    metrics::counter!("mrtr_rejections_total", "reason" => category).increment(1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::BindDigest;
    use crate::config::{Clock, KeyRing, StateConfig, StateKey};
    use crate::error::MrtrError;
    use crate::seal::{Binding, Continuation, Sealer};
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn binding(bind: u8, principal: Option<&str>) -> Binding {
        Binding {
            bind: BindDigest([bind; 32]),
            principal: principal.map(str::to_owned),
        }
    }

    fn sealer(kid: &str, key: u8, audience: &str, now: &Arc<AtomicU64>) -> Sealer {
        let now = now.clone();
        let ring = KeyRing::new(StateKey::new(kid, vec![key; 32]).unwrap());
        let config = StateConfig::new(audience, ring)
            .with_clock(Clock::from_fn(move || now.load(Ordering::SeqCst)));
        config.sealer().unwrap()
    }

    fn category(result: Result<crate::seal::Opened, MrtrError>) -> Rejection {
        match result {
            Err(MrtrError::RejectedState(reason)) => Rejection::of(&reason),
            Err(other) => panic!("expected a rejection, got {other:?}"),
            Ok(_) => panic!("expected a rejection, the token opened"),
        }
    }

    #[test]
    fn the_logged_key_lists_read_as_before_they_became_lazy() {
        let answered = BTreeMap::from([("target_env".to_owned(), 1), ("confirm".to_owned(), 2)]);
        assert_eq!(
            format!("{:?}", Keys(&answered)),
            r#"["confirm", "target_env"]"#
        );
        assert_eq!(format!("{:?}", NO_KEYS), "[]");
    }

    #[test]
    fn every_check_of_the_sealer_has_its_own_category() {
        let now = Arc::new(AtomicU64::new(1_000));
        let a = sealer("k1", 1, "svc", &now);
        let continuation = Continuation {
            step: "AfterX".into(),
            fingerprint: 1,
            round: 1,
            pending: crate::request::Asks::new(),
            answered: BTreeMap::new(),
            carried: Vec::new(),
        };
        let token = a.seal(&continuation, &binding(1, Some("alice"))).unwrap();
        let open = |s: &Sealer, token: &str, b: Binding| category(s.open(token, &b));
        assert_eq!(
            open(&a, "x2.k1.!!", binding(1, Some("alice"))),
            Rejection::Malformed
        );
        assert_eq!(
            open(
                &sealer("k2", 1, "svc", &now),
                &token,
                binding(1, Some("alice"))
            ),
            Rejection::UnknownKid
        );
        assert_eq!(
            open(
                &sealer("k1", 2, "svc", &now),
                &token,
                binding(1, Some("alice"))
            ),
            Rejection::BadTag
        );
        assert_eq!(
            open(&a, &token, binding(2, Some("alice"))),
            Rejection::WrongBinding
        );
        assert_eq!(
            open(&a, &token, binding(1, Some("bob"))),
            Rejection::WrongPrincipal
        );
        assert_eq!(
            open(&a, &token, binding(1, None)),
            Rejection::WrongPrincipal
        );
        assert_eq!(
            open(
                &sealer("k1", 1, "other", &now),
                &token,
                binding(1, Some("alice"))
            ),
            Rejection::WrongAudience
        );
        now.fetch_add(10_000, Ordering::SeqCst);
        assert_eq!(
            open(&a, &token, binding(1, Some("alice"))),
            Rejection::Expired
        );
        let huge = "x".repeat(a.max_bytes() + 1);
        assert_eq!(open(&a, &huge, binding(1, None)), Rejection::TooLarge);
    }

    #[test]
    fn a_spent_continuation_and_another_build_are_named() {
        assert_eq!(
            Rejection::of("continuation already redeemed"),
            Rejection::Spent
        );
        assert_eq!(
            Rejection::of("layout fingerprint 01 of step `A` does not match"),
            Rejection::OtherBuild
        );
        assert_eq!(Rejection::of("something new"), Rejection::Other);
    }
}
