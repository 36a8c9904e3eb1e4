//! `Sealer::open` refuses a valid token presented in the wrong context, and rotation works.

use std::time::Duration;

use super::*;
use crate::MrtrError;
use crate::bind::bind_digest;
use crate::config::{KeyRing, StateConfig, StateMode};
use crate::replay::{Claim, InMemoryReplayGuard};
use crate::seal::Binding;
use serde_json::json;

fn reason(result: Result<crate::seal::Opened, MrtrError>) -> String {
    match result {
        Err(MrtrError::RejectedState(reason)) => reason,
        Err(other) => panic!("expected a requestState rejection, got {other:?}"),
        Ok(_) => panic!("expected a requestState rejection, the token opened"),
    }
}

fn both_modes() -> [StateMode; 2] {
    [StateMode::Aead, StateMode::Hmac]
}

#[test]
fn an_opened_token_yields_the_sealed_continuation() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let token = sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap();
        let opened = sealer.open(&token, &deploy_binding()).unwrap();
        assert_eq!(opened.continuation, deploy_continuation());
        assert_eq!(opened.issued_at, START);
        assert_eq!(opened.expires_at, START + 300);
    }
}

#[test]
fn the_token_names_its_version_and_key_id() {
    let clock = TestClock::new();
    let aead = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let hmac = sealer(KeyRing::new(key("k1", 1)), StateMode::Hmac, &clock);
    assert!(
        aead.seal(&deploy_continuation(), &deploy_binding())
            .unwrap()
            .starts_with("x2.k1.")
    );
    assert!(
        hmac.seal(&deploy_continuation(), &deploy_binding())
            .unwrap()
            .starts_with("h2.k1.")
    );
}

#[test]
fn aead_tokens_do_not_reveal_carried_values_or_asks() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let token = sealer
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    let body = base64_decode(token.rsplit('.').next().unwrap());
    for secret in [
        &b"plan_01JDQ8ZB3K5X7M2N4P6R8T0V2W"[..],
        b"awaiting_env",
        b"production",
        b"Deploy",
    ] {
        assert!(
            !body.windows(secret.len()).any(|w| w == secret),
            "{:?} is readable",
            String::from_utf8_lossy(secret)
        );
    }
    // Two seals of the same continuation differ (random nonce), so nothing can be correlated.
    assert_ne!(
        token,
        sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap()
    );
}

#[test]
fn hmac_tokens_hash_the_principal_instead_of_storing_it() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Hmac, &clock);
    let binding = deploy_binding_by(Some("alice@example.com"));
    let token = sealer.seal(&deploy_continuation(), &binding).unwrap();
    let body = base64_decode(token.rsplit('.').next().unwrap());
    assert!(!body.windows(5).any(|w| w == b"alice"));
    // Sign-only means readable: the step name is there in clear.
    assert!(body.windows(12).any(|w| w == b"awaiting_env"));
    assert!(sealer.open(&token, &binding).is_ok());
}

#[test]
fn a_token_for_another_tool_is_rejected() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let token = sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap();
        let other = binding_for("delete_records", json!({"service": "checkout-api"}), None);
        assert!(reason(sealer.open(&token, &other)).contains("another request"));
        let prompt = Binding {
            bind: bind_digest(
                "prompts/get",
                "deploy_service",
                Some(&object(json!({"service": "checkout-api"}))),
            ),
            principal: None,
        };
        assert!(reason(sealer.open(&token, &prompt)).contains("another request"));
    }
}

#[test]
fn a_token_for_other_arguments_is_rejected_but_reordered_arguments_are_accepted() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let original: serde_json::Value = serde_json::from_str(
        r#"{"service":"checkout-api","options":{"canary":true,"replicas":3}}"#,
    )
    .unwrap();
    let binding = binding_for("deploy_service", original, None);
    let token = sealer.seal(&deploy_continuation(), &binding).unwrap();

    let reordered: serde_json::Value =
        serde_json::from_str("{ \"options\" : { \"replicas\" : 3.0, \"canary\" : true },\n  \"service\" : \"checkout-api\" }").unwrap();
    assert!(
        sealer
            .open(&token, &binding_for("deploy_service", reordered, None))
            .is_ok()
    );

    let changed = json!({"service": "checkout-api", "options": {"canary": false, "replicas": 3}});
    assert!(
        reason(sealer.open(&token, &binding_for("deploy_service", changed, None)))
            .contains("another request")
    );
}

#[test]
fn a_token_presented_by_another_principal_is_rejected() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let alice = deploy_binding_by(Some("alice"));
        let token = sealer.seal(&deploy_continuation(), &alice).unwrap();
        assert!(sealer.open(&token, &alice).is_ok());
        let bob = deploy_binding_by(Some("bob"));
        assert!(reason(sealer.open(&token, &bob)).contains("another principal"));
        let anonymous = deploy_binding_by(None);
        assert!(reason(sealer.open(&token, &anonymous)).contains("without one"));

        let anonymous_token = sealer.seal(&deploy_continuation(), &anonymous).unwrap();
        assert!(reason(sealer.open(&anonymous_token, &alice)).contains("with one"));
    }
}

#[test]
fn a_token_minted_for_another_audience_is_rejected() {
    let clock = TestClock::new();
    let ring = KeyRing::new(key("k1", 1));
    let billing = StateConfig::new("billing-server", ring.clone())
        .with_clock(clock.clock())
        .sealer()
        .unwrap();
    let deploy = sealer(ring, StateMode::Aead, &clock);
    let token = billing
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert!(reason(deploy.open(&token, &deploy_binding())).contains("audience"));
}

#[test]
fn an_expired_token_is_rejected() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let token = sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap();
        clock.advance(299);
        assert!(sealer.open(&token, &deploy_binding()).is_ok());
        clock.advance(1);
        assert!(reason(sealer.open(&token, &deploy_binding())).contains("expired"));
    }
}

#[test]
fn the_configured_ttl_sets_the_expiry() {
    let clock = TestClock::new();
    let config = config(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock)
        .with_ttl(Duration::from_secs(30));
    let sealer = config.sealer().unwrap();
    let token = sealer
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert_eq!(
        sealer.open(&token, &deploy_binding()).unwrap().expires_at,
        START + 30
    );
    clock.advance(30);
    assert!(reason(sealer.open(&token, &deploy_binding())).contains("expired"));
}

#[test]
fn a_token_of_an_unknown_key_id_is_rejected() {
    let clock = TestClock::new();
    let other = sealer(KeyRing::new(key("k9", 9)), StateMode::Aead, &clock);
    let ours = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let token = other
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert!(reason(ours.open(&token, &deploy_binding())).contains("unknown key id `k9`"));
}

#[test]
fn a_token_under_a_known_kid_but_another_secret_fails_the_tag() {
    let clock = TestClock::new();
    let other = sealer(KeyRing::new(key("k1", 9)), StateMode::Aead, &clock);
    let ours = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let token = other
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert!(reason(ours.open(&token, &deploy_binding())).contains("tag"));
}

#[test]
fn staged_rotation_keeps_every_token_openable_until_the_old_key_retires() {
    let clock = TestClock::new();
    // Stage 0: only k1.
    let before = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let old_token = before
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();

    // Stage 1: k2 added accept-only; k1 still seals, k2 tokens (from instances already at
    // stage 2) open.
    let staged = sealer(
        KeyRing::new(key("k1", 1)).accept(key("k2", 2)).unwrap(),
        StateMode::Aead,
        &clock,
    );
    assert!(
        staged
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap()
            .starts_with("x2.k1.")
    );
    assert!(staged.open(&old_token, &deploy_binding()).is_ok());

    // Stage 2: k2 promoted; k1 kept accept-only, so tokens minted before still open.
    let promoted = sealer(
        KeyRing::new(key("k2", 2)).accept(key("k1", 1)).unwrap(),
        StateMode::Aead,
        &clock,
    );
    let new_token = promoted
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert!(new_token.starts_with("x2.k2."));
    assert!(promoted.open(&old_token, &deploy_binding()).is_ok());
    assert!(
        staged.open(&new_token, &deploy_binding()).is_ok(),
        "a stage-1 instance opens stage-2 tokens"
    );

    // Stage 3: k1 retired; its tokens are refused by key id, the new ones still open.
    let retired = sealer(KeyRing::new(key("k2", 2)), StateMode::Aead, &clock);
    assert!(reason(retired.open(&old_token, &deploy_binding())).contains("unknown key id `k1`"));
    assert!(retired.open(&new_token, &deploy_binding()).is_ok());
}

#[test]
fn a_token_of_the_other_mode_is_rejected_as_format() {
    let clock = TestClock::new();
    let aead = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let hmac = sealer(KeyRing::new(key("k1", 1)), StateMode::Hmac, &clock);
    let token = hmac
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    assert!(reason(aead.open(&token, &deploy_binding())).contains("format"));
    // Relabelling the version does not help: the header is authenticated and the keys differ.
    let relabelled = token.replacen("h2.", "x2.", 1);
    assert!(reason(aead.open(&relabelled, &deploy_binding())).contains("tag"));
}

#[test]
fn an_oversized_token_is_rejected_before_parsing() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let huge = format!("x2.k1.{}", "A".repeat(20_000));
    assert!(reason(sealer.open(&huge, &deploy_binding())).contains("over the cap"));
}

#[test]
fn sealing_more_than_the_cap_is_refused_with_a_generic_error_and_a_precise_reason() {
    let clock = TestClock::new();
    let config = config(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock).with_max_bytes(1024);
    let sealer = config.sealer().unwrap();
    let mut continuation = deploy_continuation();
    continuation.carried = vec![0x42; 2048];
    match sealer.seal(&continuation, &deploy_binding()) {
        Err(MrtrError::StateTooLarge(reason)) => {
            assert!(reason.contains("over the cap of 1024"), "{reason}");
            assert!(reason.contains(&continuation.step), "{reason}");
            let wire = rmcp::ErrorData::from(MrtrError::StateTooLarge(reason));
            assert_eq!(wire.code.0, -32603);
            assert_eq!(wire.message, "the continuation is too large");
            assert!(
                wire.data.is_none(),
                "no step names, sizes or configuration hints"
            );
        }
        other => panic!("expected a too-large continuation, got {other:?}"),
    }
    // A token that fits under a larger cap is refused by a server with the smaller one.
    let roomy = config.clone().with_max_bytes(8192).sealer().unwrap();
    let token = roomy.seal(&continuation, &deploy_binding()).unwrap();
    assert!(reason(sealer.open(&token, &deploy_binding())).contains("over the cap"));
}

#[test]
fn the_largest_continuation_under_the_cap_still_seals_and_one_byte_more_does_not() {
    // The refusal is computed from what would be sealed, before sealing: it must agree exactly
    // with the token that sealing produces.
    let clock = TestClock::new();
    for mode in both_modes() {
        let config = config(KeyRing::new(key("k1", 1)), mode, &clock).with_max_bytes(4096);
        let sealer = config.sealer().unwrap();
        let mut continuation = deploy_continuation();
        let mut fits = 0;
        for carried in 0..4096 {
            continuation.carried = vec![0x42; carried];
            match sealer.seal(&continuation, &deploy_binding()) {
                Ok(token) => {
                    assert!(token.len() <= 4096);
                    fits = carried;
                }
                Err(MrtrError::StateTooLarge(_)) => break,
                Err(other) => panic!("{other:?}"),
            }
        }
        continuation.carried = vec![0x42; fits];
        let token = sealer.seal(&continuation, &deploy_binding()).unwrap();
        assert!(
            token.len() > 4096 - 4,
            "{mode:?}: the cap is used up to its last base64 quantum"
        );
    }
}

#[test]
fn the_idempotency_key_is_stable_per_token_and_distinct_across_tokens() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let first = sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap();
        let second = sealer
            .seal(&deploy_continuation(), &deploy_binding())
            .unwrap();
        assert_ne!(
            first, second,
            "{mode:?}: identical continuations in the same second get distinct tokens"
        );
        let a = sealer
            .open(&first, &deploy_binding())
            .unwrap()
            .idempotency_key;
        let a_again = sealer
            .open(&first, &deploy_binding())
            .unwrap()
            .idempotency_key;
        let b = sealer
            .open(&second, &deploy_binding())
            .unwrap()
            .idempotency_key;
        assert_eq!(a, a_again);
        assert_ne!(a, b);
        // Another instance with the same keys computes the same key for the same token.
        let peer = super::sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        assert_eq!(
            peer.open(&first, &deploy_binding())
                .unwrap()
                .idempotency_key,
            a
        );
    }
}

#[test]
fn a_replay_guard_makes_a_token_single_use() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let guard = InMemoryReplayGuard::with_clock(clock.clock());
    let token = sealer
        .seal(&deploy_continuation(), &deploy_binding())
        .unwrap();
    let opened = sealer.open(&token, &deploy_binding()).unwrap();
    assert_eq!(guard.claim_now(&opened.idempotency_key), Claim::Taken);
    guard.spend_now(&opened.idempotency_key, opened.expires_at);
    let again = sealer.open(&token, &deploy_binding()).unwrap();
    assert_eq!(guard.claim_now(&again.idempotency_key), Claim::Spent);
}

#[test]
fn configuration_errors_are_reported_not_panicked() {
    let ring = KeyRing::new(key("k1", 1));
    for config in [
        StateConfig::new("", ring.clone()),
        StateConfig::new("a", ring.clone()).with_ttl(Duration::ZERO),
        StateConfig::new("a", ring.clone()).with_max_bytes(10),
    ] {
        assert!(
            matches!(config.sealer(), Err(MrtrError::Internal(_))),
            "{config:?}"
        );
    }
    assert!(crate::config::StateKey::new("k1", vec![0; 31]).is_err());
    assert!(crate::config::StateKey::new("bad kid", vec![0; 32]).is_err());
    assert!(KeyRing::new(key("k1", 1)).accept(key("k1", 2)).is_err());
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

/// A sealer of the same key that seals format 1, as a build before format 2 (or one configured
/// with `MRTR_STATE_FORMAT=1` during a rollout) does.
fn format_1(clock: &TestClock, mode: StateMode) -> crate::seal::Sealer {
    config(KeyRing::new(key("k1", 1)), mode, clock)
        .with_format(crate::config::StateFormat::V1)
        .sealer()
        .unwrap()
}

#[test]
fn a_format_1_token_of_an_earlier_build_still_opens_and_is_still_bound() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let alice = deploy_binding_by(Some("alice"));
        let old = format_1(&clock, mode)
            .seal(&deploy_continuation(), &alice)
            .unwrap();
        assert!(old.starts_with(if mode == StateMode::Aead {
            "x1.k1."
        } else {
            "h1.k1."
        }));
        let opened = sealer.open(&old, &alice).unwrap();
        assert_eq!(opened.continuation, deploy_continuation());
        let other_tool = binding_for(
            "delete_records",
            json!({"service": "checkout-api"}),
            Some("alice"),
        );
        assert!(reason(sealer.open(&old, &other_tool)).starts_with("bound to another request"));
        let bob = deploy_binding_by(Some("bob"));
        assert!(reason(sealer.open(&old, &bob)).starts_with("bound to another principal"));
        clock.advance(300);
        assert!(reason(sealer.open(&old, &alice)).starts_with("expired"));
    }
}

#[test]
fn format_2_authenticates_the_binding_instead_of_carrying_it() {
    for (mode, principal, saved) in [
        (StateMode::Aead, None, 45),
        (StateMode::Aead, Some("alice"), 60),
        (StateMode::Hmac, None, 45),
        (StateMode::Hmac, Some("alice"), 60),
    ] {
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), mode, &clock);
        let binding = deploy_binding_by(principal);
        let new = sealer.seal(&deploy_continuation(), &binding).unwrap();
        let old = format_1(&clock, mode)
            .seal(&deploy_continuation(), &binding)
            .unwrap();
        let body = |token: &str| base64_decode(token.rsplit('.').next().unwrap()).len();
        assert_eq!(
            body(&old) - body(&new),
            saved,
            "{mode:?}, principal {principal:?}"
        );
    }
}

#[test]
fn every_format_2_refusal_is_named_in_both_modes() {
    for mode in both_modes() {
        let clock = TestClock::new();
        let ring = KeyRing::new(key("k1", 1));
        let ours = sealer(ring.clone(), mode, &clock);
        let alice = deploy_binding_by(Some("alice"));
        let token = ours.seal(&deploy_continuation(), &alice).unwrap();
        let billing = StateConfig::new("billing-server", ring)
            .with_mode(mode)
            .with_clock(clock.clock())
            .sealer()
            .unwrap();
        let foreign = billing.seal(&deploy_continuation(), &alice).unwrap();
        assert!(reason(ours.open(&foreign, &alice)).starts_with("minted for another audience"));
        let arguments = binding_for(
            "deploy_service",
            json!({"service": "search"}),
            Some("alice"),
        );
        assert!(reason(ours.open(&token, &arguments)).starts_with("bound to another request"));
        let bob = deploy_binding_by(Some("bob"));
        assert!(reason(ours.open(&token, &bob)).starts_with("bound to another principal"));
        let anonymous = deploy_binding_by(None);
        assert!(reason(ours.open(&token, &anonymous)).starts_with("bound to a principal"));
        let other_secret = sealer(KeyRing::new(key("k1", 9)), mode, &clock);
        let forged = other_secret
            .seal(&deploy_continuation(), &anonymous)
            .unwrap();
        assert!(reason(ours.open(&forged, &anonymous)).starts_with("tag does not verify"));
        // The principal's hash is keyed: under another secret, a sign-only token's readable
        // check cannot tell the principal from the secret, and says both.
        let forged = other_secret.seal(&deploy_continuation(), &alice).unwrap();
        let refused = reason(ours.open(&forged, &alice));
        match mode {
            StateMode::Aead => assert!(refused.starts_with("tag does not verify"), "{refused}"),
            StateMode::Hmac => assert!(
                refused.starts_with("bound to another principal")
                    && refused.ends_with("(or sealed under another secret of key `k1`)"),
                "{refused}"
            ),
        }
        // A token bound elsewhere that has also expired is still named by its binding; one
        // whose check is older than any TTL is no longer read.
        clock.advance(400);
        assert!(reason(ours.open(&token, &bob)).starts_with("bound to another principal"));
        clock.advance(3 * 86_400);
        assert!(reason(ours.open(&token, &bob)).starts_with("tag does not verify"));
    }
}
