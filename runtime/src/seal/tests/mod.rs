//! The sealer's tests, and the fixtures they share.

mod checks;
mod env_config;
mod roundtrip;
mod tamper;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::bind::bind_digest;
use crate::config::{Clock, KeyRing, StateConfig, StateKey, StateMode};
use crate::request::{InputMethod, InputRequest};
use crate::seal::{Binding, Continuation, Sealer};
use serde_json::{Map, Value, json};

pub const AUDIENCE: &str = "deploy-server";
pub const START: u64 = 1_764_450_000;

/// A key whose secret is 32 copies of `fill`.
pub fn key(kid: &str, fill: u8) -> StateKey {
    StateKey::new(kid, vec![fill; 32]).unwrap()
}

/// A clock the test moves by hand.
#[derive(Clone)]
pub struct TestClock(Arc<AtomicU64>);

impl TestClock {
    pub fn new() -> Self {
        TestClock(Arc::new(AtomicU64::new(START)))
    }
    pub fn clock(&self) -> Clock {
        let now = self.0.clone();
        Clock::from_fn(move || now.load(Ordering::SeqCst))
    }
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

pub fn config(ring: KeyRing, mode: StateMode, clock: &TestClock) -> StateConfig {
    StateConfig::new(AUDIENCE, ring)
        .with_mode(mode)
        .with_ttl(Duration::from_secs(300))
        .with_clock(clock.clock())
}

pub fn sealer(ring: KeyRing, mode: StateMode, clock: &TestClock) -> Sealer {
    config(ring, mode, clock).sealer().unwrap()
}

pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

pub fn binding_for(tool: &str, arguments: Value, principal: Option<&str>) -> Binding {
    Binding {
        bind: bind_digest("tools/call", tool, Some(&object(arguments))),
        principal: principal.map(str::to_owned),
    }
}

/// The deploy example of the porting guide, suspended at `awaiting_env`.
pub fn deploy_binding() -> Binding {
    deploy_binding_by(None)
}

/// The same request, presented by `principal`.
pub fn deploy_binding_by(principal: Option<&str>) -> Binding {
    binding_for(
        "deploy_service",
        json!({"service": "checkout-api"}),
        principal,
    )
}

pub fn deploy_continuation() -> Continuation {
    let mut carried = Vec::new();
    ciborium::into_writer(&"plan_01JDQ8ZB3K5X7M2N4P6R8T0V2W", &mut carried).unwrap();
    ciborium::into_writer(
        &"9f2c1e7ab04d5c38e6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",
        &mut carried,
    )
    .unwrap();
    Continuation {
        step: "awaiting_env".into(),
        fingerprint: 0x5eed_0fde_910c_a11e,
        round: 1,
        pending: crate::request::Asks::from([(
            "target_env".to_owned(),
            InputRequest::new(
                InputMethod::Elicitation,
                Some(json!({
                    "mode": "form",
                    "message": "Deploy \"checkout-api\" — which environment?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"environment": {"type": "string", "enum": ["staging", "production"], "description": "Deployment target"}},
                        "required": ["environment"]
                    }
                })),
            ),
        )]),
        answered: BTreeMap::new(),
        carried,
    }
}
