//! Whatever a handler suspends with comes back unchanged, in both modes.

use std::collections::BTreeMap;

use super::*;
use crate::config::{KeyRing, StateMode};
use crate::request::{InputMethod, InputRequest};
use crate::seal::{Binding, Continuation};
use proptest::prelude::*;
use serde_json::Value;

use crate::json_shape::JsonShape;

fn json_value() -> impl Strategy<Value = Value> {
    JsonShape {
        text: ".{0,24}",
        keys: ".{0,10}",
        depth: 4,
        nodes: 48,
        items: 6,
    }
    .values()
}

fn input_request() -> impl Strategy<Value = InputRequest> {
    (
        prop_oneof![
            Just(InputMethod::Elicitation),
            Just(InputMethod::Sampling),
            Just(InputMethod::Roots)
        ],
        prop::option::of(json_value()),
    )
        .prop_map(|(method, params)| InputRequest::new(method, params))
}

fn continuation() -> impl Strategy<Value = Continuation> {
    (
        "[A-Za-z][A-Za-z0-9_]{0,30}",
        any::<u64>(),
        any::<u32>(),
        prop::collection::btree_map("[a-z_@0-9]{1,16}", input_request(), 0..4),
        prop::collection::btree_map("[a-z_@0-9]{1,16}", json_value(), 0..4),
        prop::collection::vec(any::<u8>(), 0..600),
    )
        .prop_map(
            |(step, fingerprint, round, pending, answered, carried)| Continuation {
                step,
                fingerprint,
                round,
                pending: pending.into(),
                answered,
                carried,
            },
        )
}

fn binding() -> impl Strategy<Value = Binding> {
    (any::<[u8; 32]>(), prop::option::of(".{0,40}")).prop_map(|(bind, principal)| Binding {
        bind: crate::bind::BindDigest(bind),
        principal,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_continuation_round_trips(continuation in continuation(), binding in binding(), hmac in any::<bool>()) {
        let mode = if hmac { StateMode::Hmac } else { StateMode::Aead };
        let clock = TestClock::new();
        let ring = KeyRing::new(key("k1", 1)).accept(key("k0", 0)).unwrap();
        let sealer = sealer(ring, mode, &clock);
        let token = sealer.seal(&continuation, &binding).unwrap();
        prop_assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "not URL-safe: {token}");
        let opened = sealer.open(&token, &binding).unwrap();
        prop_assert_eq!(opened.continuation, continuation);
    }

    #[test]
    fn any_continuation_is_refused_under_any_other_binding(
        continuation in continuation(),
        binding in binding(),
        other in binding(),
    ) {
        prop_assume!(binding != other);
        let clock = TestClock::new();
        let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
        let token = sealer.seal(&continuation, &binding).unwrap();
        prop_assert!(sealer.open(&token, &other).is_err());
    }
}

#[test]
fn an_empty_continuation_round_trips() {
    let clock = TestClock::new();
    let sealer = sealer(KeyRing::new(key("k1", 1)), StateMode::Aead, &clock);
    let empty = Continuation {
        step: String::new(),
        fingerprint: 0,
        round: 0,
        pending: crate::request::Asks::new(),
        answered: BTreeMap::new(),
        carried: Vec::new(),
    };
    let binding = deploy_binding();
    let token = sealer.seal(&empty, &binding).unwrap();
    assert_eq!(sealer.open(&token, &binding).unwrap().continuation, empty);
}
