//! Size and shape limits on incoming `inputResponses`.
//!
//! OWNER: helper B.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::MrtrError;

/// Bounds on what a client may send back in one round.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_keys: usize,
    pub max_depth: usize,
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_keys: 64,
            max_depth: 32,
            max_bytes: 1 << 20,
        }
    }
}

impl Limits {
    pub fn check(&self, responses: &BTreeMap<String, Value>) -> Result<(), MrtrError> {
        let _ = responses;
        todo!()
    }
}
