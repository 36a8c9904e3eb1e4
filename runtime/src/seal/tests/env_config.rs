//! `MRTR_STATE_*` parsing: good values configure the sealer, bad ones fail with a clear message.

use std::collections::HashMap;
use std::time::Duration;

use super::*;
use crate::MrtrError;
use crate::config::{DEFAULT_MAX_BYTES, DEFAULT_TTL, StateConfig, StateMode};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use proptest::prelude::*;

fn from(vars: &[(&str, &str)]) -> Result<StateConfig, MrtrError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    StateConfig::from_vars(AUDIENCE, |name| vars.get(name).cloned())
}

fn error(vars: &[(&str, &str)]) -> String {
    match from(vars) {
        Err(MrtrError::Internal(message)) => message,
        Err(other) => panic!("expected a configuration error, got {other:?}"),
        Ok(config) => panic!("expected a configuration error, got {config:?}"),
    }
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn the_first_key_seals_and_every_key_opens() {
    let spec = format!("k2:{}, k1:{}", b64(&[2; 32]), b64(&[1; 48]));
    let config = from(&[("MRTR_STATE_KEYS", &spec)]).unwrap();
    let kids: Vec<&str> = config.keys.keys().iter().map(|k| k.kid()).collect();
    assert_eq!(kids, ["k2", "k1"]);
    assert_eq!(config.keys.active().kid(), "k2");

    // A k1 token (minted before the rotation) opens under the parsed ring.
    let clock = TestClock::new();
    let old = sealer(
        crate::config::KeyRing::new(crate::config::StateKey::new("k1", vec![1; 48]).unwrap()),
        StateMode::Aead,
        &clock,
    );
    let token = old.seal(&deploy_continuation(), &deploy_binding()).unwrap();
    let parsed = config.with_clock(clock.clock()).sealer().unwrap();
    assert!(parsed.open(&token, &deploy_binding()).is_ok());
}

#[test]
fn defaults_apply_when_only_keys_are_set() {
    let config = from(&[("MRTR_STATE_KEYS", &format!("k1:{}", b64(&[1; 32])))]).unwrap();
    assert_eq!(config.ttl, DEFAULT_TTL);
    assert_eq!(config.ttl, Duration::from_secs(300));
    assert_eq!(config.max_bytes, DEFAULT_MAX_BYTES);
    assert_eq!(config.max_bytes, 16 * 1024);
    assert_eq!(config.mode, StateMode::Aead);
    assert_eq!(config.audience, AUDIENCE);
}

#[test]
fn ttl_max_bytes_and_mode_are_read() {
    let keys = format!("k1:{}", b64(&[1; 32]));
    let config = from(&[
        ("MRTR_STATE_KEYS", &keys),
        ("MRTR_STATE_TTL", "90"),
        ("MRTR_STATE_MAX_BYTES", " 4096 "),
        ("MRTR_STATE_MODE", "HMAC"),
        ("MRTR_STATE_FORMAT", " 1"),
    ])
    .unwrap();
    assert_eq!(config.ttl, Duration::from_secs(90));
    assert_eq!(config.max_bytes, 4096);
    assert_eq!(config.mode, StateMode::Hmac);
    assert_eq!(config.format, crate::config::StateFormat::V1);
    assert_eq!(
        from(&[("MRTR_STATE_KEYS", &keys)]).unwrap().format,
        crate::config::StateFormat::V2,
        "format 2 unless told"
    );
    assert_eq!(
        from(&[("MRTR_STATE_KEYS", &keys), ("MRTR_STATE_MODE", "aead")])
            .unwrap()
            .mode,
        StateMode::Aead
    );
}

#[test]
fn padded_base64url_keys_are_accepted() {
    let config = from(&[(
        "MRTR_STATE_KEYS",
        &format!("k1:{}", URL_SAFE.encode([7; 32])),
    )])
    .unwrap();
    assert_eq!(config.keys.active().kid(), "k1");
}

#[test]
fn no_keys_means_an_ephemeral_key() {
    let config = from(&[]).unwrap();
    assert_eq!(config.keys.keys().len(), 1);
    assert_eq!(config.keys.active().kid(), "ephemeral");
    // Two processes (here: two configurations) cannot open each other's tokens.
    let clock = TestClock::new();
    let a = config.with_clock(clock.clock()).sealer().unwrap();
    let b = from(&[])
        .unwrap()
        .with_clock(clock.clock())
        .sealer()
        .unwrap();
    let token = a.seal(&deploy_continuation(), &deploy_binding()).unwrap();
    assert!(a.open(&token, &deploy_binding()).is_ok());
    assert!(b.open(&token, &deploy_binding()).is_err());
}

#[test]
fn a_short_key_is_refused_with_its_length() {
    let message = error(&[("MRTR_STATE_KEYS", &format!("k1:{}", b64(&[1; 16])))]);
    assert!(
        message.contains("MRTR_STATE_KEYS")
            && message.contains("16 bytes")
            && message.contains("at least 32"),
        "{message}"
    );
}

#[test]
fn malformed_key_lists_are_refused_without_echoing_secrets() {
    let secret = b64(&[0xAB; 32]);
    let cases = [
        (String::new(), "entry 1 is empty"),
        (format!("k1:{secret},"), "entry 2 is empty"),
        (secret.clone(), "no `kid:` prefix"),
        (format!(":{secret}"), "1 to 32 characters"),
        (format!("k 1:{secret}"), "may only use"),
        (format!("{}:{secret}", "k".repeat(33)), "1 to 32 characters"),
        (format!("k1:{secret},k1:{secret}"), "appears twice"),
        (
            format!("k1:{}", STANDARD.encode([0xfb; 32])),
            "not base64url",
        ),
        ("k1:not*base64".to_owned(), "not base64url"),
    ];
    for (spec, expected) in cases {
        let message = error(&[("MRTR_STATE_KEYS", &spec)]);
        assert!(message.contains("MRTR_STATE_KEYS"), "{message}");
        assert!(message.contains(expected), "{spec:?}: {message}");
        assert!(
            !message.contains(&secret),
            "the secret leaked into {message}"
        );
    }
}

#[test]
fn malformed_ttl_max_bytes_and_mode_are_refused() {
    let keys = format!("k1:{}", b64(&[1; 32]));
    let cases = [
        (
            "MRTR_STATE_TTL",
            "",
            "MRTR_STATE_TTL must be a whole number",
        ),
        (
            "MRTR_STATE_TTL",
            "5m",
            "MRTR_STATE_TTL must be a whole number",
        ),
        (
            "MRTR_STATE_TTL",
            "-1",
            "MRTR_STATE_TTL must be a whole number",
        ),
        ("MRTR_STATE_TTL", "0", "between 1 and 86400"),
        ("MRTR_STATE_TTL", "86401", "between 1 and 86400"),
        ("MRTR_STATE_TTL", "99999999999999999999999", "whole number"),
        (
            "MRTR_STATE_MAX_BYTES",
            "16k",
            "MRTR_STATE_MAX_BYTES must be a whole number",
        ),
        ("MRTR_STATE_MAX_BYTES", "100", "between 256 and 1048576"),
        (
            "MRTR_STATE_MODE",
            "aes",
            "MRTR_STATE_MODE must be `aead` or `hmac`",
        ),
        (
            "MRTR_STATE_MODE",
            "",
            "MRTR_STATE_MODE must be `aead` or `hmac`",
        ),
        (
            "MRTR_STATE_FORMAT",
            "3",
            "MRTR_STATE_FORMAT must be `2` or `1`",
        ),
        (
            "MRTR_STATE_FORMAT",
            "v2",
            "MRTR_STATE_FORMAT must be `2` or `1`",
        ),
    ];
    for (name, value, expected) in cases {
        let message = error(&[("MRTR_STATE_KEYS", &keys), (name, value)]);
        assert!(message.contains(expected), "{name}={value:?}: {message}");
    }
}

proptest! {
    #[test]
    fn arbitrary_variable_values_never_panic(keys in ".{0,120}", ttl in ".{0,12}", max in ".{0,12}", mode in ".{0,8}", format in ".{0,4}") {
        let _ = from(&[
            ("MRTR_STATE_KEYS", &keys),
            ("MRTR_STATE_TTL", &ttl),
            ("MRTR_STATE_MAX_BYTES", &max),
            ("MRTR_STATE_MODE", &mode),
            ("MRTR_STATE_FORMAT", &format),
        ]);
    }
}

/// Records the message of every WARN event emitted while it is the default subscriber.
struct WarnRecorder(std::sync::Mutex<Vec<String>>);

impl tracing::Subscriber for WarnRecorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    *self.0 = format!("{value:?}");
                }
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut message = String::new();
            event.record(&mut Message(&mut message));
            self.0.lock().unwrap().push(message);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn an_ephemeral_key_is_announced_with_a_warning() {
    let recorder = std::sync::Arc::new(WarnRecorder(Default::default()));
    tracing::subscriber::with_default(recorder.clone(), || from(&[]).unwrap());
    let warnings = recorder.0.lock().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("EPHEMERAL") && warnings[0].contains("MRTR_STATE_KEYS"),
        "{}",
        warnings[0]
    );

    let recorder = std::sync::Arc::new(WarnRecorder(Default::default()));
    let keys = format!("k1:{}", b64(&[1; 32]));
    tracing::subscriber::with_default(recorder.clone(), || {
        from(&[("MRTR_STATE_KEYS", &keys)]).unwrap()
    });
    assert!(
        recorder.0.lock().unwrap().is_empty(),
        "configured keys log no warning"
    );
}
