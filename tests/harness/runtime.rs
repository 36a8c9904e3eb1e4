//! The mrtr runtime each test server runs with: a fixed sealing key, so a token minted by one
//! server instance opens on another with the same key, as behind a load balancer.

use std::sync::Arc;
use std::time::Duration;

use mrtr::Runtime;
use mrtr::config::StateConfig;

/// A runtime sealing for `audience` with the harness's fixed key.
pub fn test_runtime(audience: &str) -> Arc<Runtime> {
    let config = StateConfig {
        ttl: Duration::from_secs(300),
        max_bytes: 16 * 1024,
        audience: audience.to_owned(),
    };
    Arc::new(Runtime::new(config).expect("the harness's state configuration is valid"))
}
