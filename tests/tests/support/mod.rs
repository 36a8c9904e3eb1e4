//! What the example tests share: the process-wide mrtr runtime the example servers use.

/// Installs, once per test binary, the runtime the examples would read from `MRTR_STATE_KEYS`:
/// a fixed key, so every server instance in the binary opens every other's tokens.
pub fn install_runtime(audience: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let key = mrtr::config::StateKey::new("k1", [7u8; 32]).expect("a 32-byte key is accepted");
        let config = mrtr::config::StateConfig::new(audience, mrtr::config::KeyRing::new(key));
        mrtr::Runtime::new(config)
            .expect("valid configuration")
            .install();
    });
}
