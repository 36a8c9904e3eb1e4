//! Which protocol era a request belongs to.

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;

/// The two ways one handler body runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Era {
    /// A session opened with `initialize` (2025-11-25 and earlier): asks are real
    /// server-initiated requests, awaited in place.
    Legacy(ProtocolVersion),
    /// 2026-07-28 and later: asks suspend into `input_required` and a sealed `requestState`.
    Modern(ProtocolVersion),
}

impl Era {
    /// Per request: modern `_meta` wins; otherwise the version the session negotiated.
    pub fn of(context: &RequestContext<RoleServer>) -> Self {
        match context.protocol_version() {
            Some(version) if version.has_initialize() => Era::Legacy(version),
            Some(version) => Era::Modern(version),
            // No `_meta` and no handshake: a malformed modern request; serve it statelessly.
            None => Era::Modern(ProtocolVersion::LATEST),
        }
    }
}
