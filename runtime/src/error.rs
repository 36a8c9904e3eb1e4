//! The failures the runtime reports to the client, and their JSON-RPC shapes.

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::Value;

/// What can go wrong outside the user's own code.
///
/// Every rejection of `requestState` carries its precise reason for the log but reaches the
/// client as one generic -32602, so a probing client learns nothing about which check failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MrtrError {
    /// `requestState` failed a check (size, format, key id, tag, expiry, audience, binding,
    /// principal, fingerprint, replay, slot decoding).
    #[error("requestState rejected: {0}")]
    RejectedState(String),
    /// `inputResponses` is not an object, or is past a size or depth limit.
    #[error("inputResponses rejected: {0}")]
    InvalidInputResponses(String),
    /// The continuation of a suspended call would exceed `MRTR_STATE_MAX_BYTES`: refused from
    /// the size of what it carries, before it is encoded. Reaches the client as a generic
    /// -32603; the step and the sizes go to the log.
    #[error("continuation too large: {0}")]
    StateTooLarge(String),
    /// An ask needs a client capability this request did not declare (-32021).
    #[error("missing required client capability: {0}")]
    MissingCapability(Value),
    /// A legacy client failed the server-initiated request, or kept answering with content that
    /// does not fit the requested schema.
    #[error("client request failed: {0}")]
    Client(String),
    /// A legacy client cancelled the call (`notifications/cancelled`) while it waited on an ask:
    /// the pending server-initiated requests are abandoned and the handler stops there. rmcp
    /// drops the response of a cancelled request, so the client never sees this error.
    #[error("the call was cancelled by the client")]
    Cancelled,
    /// The replay guard's shared store could not say whether the continuation was already
    /// redeemed, and the guard fails closed: -32603, and nothing of the round runs.
    #[error("replay store unavailable: {0}")]
    ReplayStoreUnavailable(String),
    /// Single use: another round holds this continuation's lease (a duplicate presentation
    /// while the first still runs, or a round whose instance died less than a lease ago).
    /// -32603 "retry later", and nothing of the round runs; a retry once the lease has run out
    /// takes the round over.
    #[error("requestState in flight: {0}")]
    StateInFlight(String),
    /// A bug or misconfiguration on this server.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The one message every `requestState` rejection carries on the wire.
pub(crate) const REJECTED_STATE_MESSAGE: &str =
    "Invalid params: requestState is invalid, expired or does not belong to this request";

/// What a client is told when its call cannot be suspended: nothing about steps, sizes or
/// configuration.
pub(crate) const STATE_TOO_LARGE_MESSAGE: &str = "the continuation is too large";

/// What a client is told when single use cannot be checked: retrying later is safe, since
/// nothing ran and the continuation was not spent.
pub(crate) const REPLAY_STORE_UNAVAILABLE_MESSAGE: &str = "single use of requestState cannot be checked right now (replay store unavailable); nothing was run, retry later";

/// What a client is told when another round holds the continuation: the same request may get
/// through once that round has answered (then it is refused as spent) or its lease has run out
/// (then it runs).
pub(crate) const STATE_IN_FLIGHT_MESSAGE: &str = "requestState is being answered by another request (a duplicate, or a round whose server stopped); nothing was run, retry later";

/// JSON-RPC code of `MissingRequiredClientCapabilityError` (2026-07-28).
pub(crate) const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;

impl From<MrtrError> for ErrorData {
    fn from(error: MrtrError) -> Self {
        match error {
            MrtrError::RejectedState(reason) => {
                crate::observe::rejected(&reason);
                ErrorData::invalid_params(REJECTED_STATE_MESSAGE, None)
            }
            MrtrError::InvalidInputResponses(reason) => {
                ErrorData::invalid_params(format!("Invalid params: {reason}"), None)
            }
            MrtrError::MissingCapability(required) => ErrorData::new(
                ErrorCode(MISSING_REQUIRED_CLIENT_CAPABILITY),
                "Missing required client capability",
                Some(serde_json::json!({ "requiredCapabilities": required })),
            ),
            MrtrError::Client(reason) => ErrorData::internal_error(reason, None),
            MrtrError::StateTooLarge(reason) => {
                tracing::warn!(target: "mrtr", %reason, "continuation too large");
                ErrorData::internal_error(STATE_TOO_LARGE_MESSAGE, None)
            }
            MrtrError::Cancelled => {
                tracing::info!(target: "mrtr", "legacy call cancelled while waiting on an ask");
                ErrorData::internal_error("the request was cancelled", None)
            }
            MrtrError::ReplayStoreUnavailable(reason) => {
                tracing::error!(target: "mrtr", %reason, "replay store unavailable: round refused (fail closed)");
                ErrorData::internal_error(REPLAY_STORE_UNAVAILABLE_MESSAGE, None)
            }
            MrtrError::StateInFlight(reason) => {
                crate::observe::in_flight(&reason);
                ErrorData::internal_error(STATE_IN_FLIGHT_MESSAGE, None)
            }
            MrtrError::Internal(reason) => {
                tracing::error!(target: "mrtr", %reason, "mrtr internal error");
                ErrorData::internal_error(reason, None)
            }
        }
    }
}

/// Misconfiguration is this server's fault, hence `Internal`; the message names the setting.
pub(crate) fn config_error(reason: String) -> MrtrError {
    MrtrError::Internal(format!("state configuration: {reason}"))
}
