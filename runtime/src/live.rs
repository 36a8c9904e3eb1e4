//! The legacy era's transport: an `ask!` on a session opened with `initialize` is sent to the
//! client as a real server-initiated request (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`) and awaited in place. Kept apart from the round (`machine::round`) so that the
//! round only knows "send these asks, collect the replies", not rmcp's request dialects.

use std::borrow::Cow;

use rmcp::model::{ClientResult, ElicitRequest, ProtocolVersion, ServerRequest};
#[allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still served
use rmcp::model::{CreateMessageRequest, CreateMessageRequestParams, ListRootsRequest};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::MrtrError;
use crate::request::{InputMethod, InputRequest};

/// A legacy client's reply to one server-initiated request.
pub(crate) enum LiveReply {
    /// The answer, in the shape a 2026-07-28 client would put in `inputResponses`, so both eras
    /// decode through the same code.
    Answered(Value),
    /// The client answered with a JSON-RPC error: for sampling and roots that is how a legacy
    /// client reports that the user refused (a 2026-07-28 client would simply not retry).
    Refused(String),
}

/// Sends one ask to a legacy client and waits for its reply, or abandons it when the tool call
/// it belongs to is cancelled.
///
/// rmcp answers a `notifications/cancelled` only by cancelling the request's token: the
/// handler's future keeps running. Racing the reply against that token is what stops the
/// handler at its `ask!`; the client is told, with a `notifications/cancelled` of our own, that
/// the server-initiated request is abandoned, so it can close its dialog.
pub(crate) async fn send_live(
    peer: &Peer<RoleServer>,
    version: &ProtocolVersion,
    request: &InputRequest,
    cancelled: &CancellationToken,
) -> Result<LiveReply, MrtrError> {
    let outbound = server_request(version, request)?;
    if cancelled.is_cancelled() {
        return Err(MrtrError::Cancelled);
    }
    let mut handle = match peer
        .send_cancellable_request(outbound, PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(error) => return failed(request, error),
    };
    let reply = tokio::select! {
        reply = &mut handle.rx => reply,
        () = cancelled.cancelled() => {
            // Best effort: a client that is already gone cannot be told.
            let _ = handle.cancel(Some("the tool call was cancelled".into())).await;
            return Err(MrtrError::Cancelled);
        }
    };
    let result = match reply {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => return failed(request, error),
        Err(_) => return failed(request, ServiceError::TransportClosed),
    };
    let value = match result {
        ClientResult::ElicitResult(result) => serde_json::to_value(result),
        ClientResult::CreateMessageResult(result) => serde_json::to_value(result),
        ClientResult::ListRootsResult(result) => serde_json::to_value(result),
        other => {
            return Err(MrtrError::Client(format!(
                "{:?} was answered with an unexpected result: {other:?}",
                request.method
            )));
        }
    };
    value
        .map(LiveReply::Answered)
        .map_err(|e| MrtrError::Internal(format!("cannot re-encode the client's answer: {e}")))
}

/// A failed server-initiated request: a JSON-RPC error from the client is the user refusing; a
/// broken transport fails the call.
fn failed(request: &InputRequest, error: ServiceError) -> Result<LiveReply, MrtrError> {
    match error {
        ServiceError::McpError(error) => Ok(LiveReply::Refused(error.message.to_string())),
        other => Err(MrtrError::Client(format!(
            "{:?} request failed: {other}",
            request.method
        ))),
    }
}

/// The legacy wire form of one ask, in the dialect of the session's protocol version.
#[allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still served
fn server_request(
    version: &ProtocolVersion,
    request: &InputRequest,
) -> Result<ServerRequest, MrtrError> {
    let shape = |e: serde_json::Error| {
        MrtrError::Internal(format!(
            "{:?} params do not fit rmcp's model: {e}",
            request.method
        ))
    };
    // A form as `elicit` builds it decodes to the same rmcp variant in every dialect (the
    // older one below only drops `mode` first), so it takes the conversion that keeps schemas.
    if let Some(form) = request.form_params() {
        return Ok(ServerRequest::ElicitRequest(ElicitRequest::new(
            form.map_err(shape)?,
        )));
    }
    Ok(match request.method {
        InputMethod::Elicitation => {
            let mut params = request
                .json_params()
                .map_or_else(|| Value::Object(Default::default()), Cow::into_owned);
            if request.is_url_elicitation() {
                // 2025-11-25 URL elicitation needs an id; 2026-07-28 dropped it.
                if let Some(object) = params.as_object_mut() {
                    object
                        .entry("elicitationId")
                        .or_insert_with(|| Value::String(elicitation_id()));
                }
            } else if version.as_str() < "2025-11-25"
                && let Some(object) = params.as_object_mut()
            {
                // 2025-06-18 form elicitation has no `mode`.
                object.remove("mode");
            }
            ServerRequest::ElicitRequest(ElicitRequest::new(
                serde_json::from_value(params).map_err(shape)?,
            ))
        }
        InputMethod::Sampling => {
            let params: CreateMessageRequestParams = request.sampling_params().map_err(shape)?;
            // What rmcp's own `Peer::create_message` checks before it sends.
            params.validate().map_err(|reason| {
                MrtrError::Internal(format!("sampling request is malformed: {reason}"))
            })?;
            ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params))
        }
        InputMethod::Roots => ServerRequest::ListRootsRequest(ListRootsRequest {
            method: Default::default(),
            extensions: Default::default(),
        }),
    })
}

fn elicitation_id() -> String {
    let mut bytes = [0u8; 16];
    // An id only has to be unique per session; fall back to the clock if the OS RNG fails.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
