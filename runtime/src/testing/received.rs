//! What the scripted client records of each request it is sent: its own module, read by the
//! client (which records and answers) and by the legacy naming (which names live requests).

use serde_json::Value;

/// One request the client received.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: &'static str,
    /// The `inputRequests` key on 2026-07-28 (rmcp passes it as the request id); `None` for a
    /// real server-initiated request on a legacy session.
    pub key: Option<String>,
    /// The ask key the script answered this request as: the wire key on 2026-07-28; on a legacy
    /// session the key the client named the live request with (see the module docs), if any.
    pub ask_key: Option<String>,
    /// The elicitation message, or every sampling message text and the system prompt joined by
    /// newlines; empty for roots.
    pub text: String,
    /// The request's params as the client saw them.
    pub params: Value,
}
