//! The per-request capability gate.
//!
//! OWNER: helper B.

use serde_json::Value;

use crate::error::MrtrError;
use crate::request::InputRequest;

/// The client capabilities declared for this request (2026-07-28 `_meta`) or, on a legacy
/// session, at `initialize`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientCaps {
    declared: Value,
}

impl ClientCaps {
    pub fn from_value(declared: Value) -> Self {
        Self { declared }
    }
    pub fn from_rmcp(capabilities: Option<&rmcp::model::ClientCapabilities>) -> Self {
        let _ = capabilities;
        todo!()
    }
}

/// Checks every request against `caps`; the error names exactly what is missing (-32021).
pub fn gate<'a>(
    caps: &ClientCaps,
    requests: impl IntoIterator<Item = &'a InputRequest>,
) -> Result<(), MrtrError> {
    let _ = (caps, requests.into_iter());
    todo!()
}
