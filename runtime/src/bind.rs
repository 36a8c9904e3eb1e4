//! The bind digest: which request a continuation belongs to.
//!
//! OWNER: helper A.

use serde_json::{Map, Value};

/// SHA-256 over the method, the target (tool name, prompt name or resource URI) and the
/// canonical JSON of the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindDigest(pub [u8; 32]);

pub fn bind_digest(
    method: &str,
    target: &str,
    arguments: Option<&Map<String, Value>>,
) -> BindDigest {
    let _ = (method, target, arguments);
    todo!()
}
