//! Typed answers to input requests.
//!
//! OWNER: helper B.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::request::InputRequest;

/// The client's answer to one ask. Exhaustive on purpose: a dismissed dialog is never consent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Answer<T> {
    /// The user (or the client's model) supplied a value that decoded as `T`.
    Accept(T),
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// Decodes one raw `inputResponses` value against the request it answers.
///
/// `Err` means the value is missing its expected shape (wrong type, undecodable content): the
/// caller treats the key as unanswered and asks again.
pub(crate) fn decode<T: DeserializeOwned>(
    request: &InputRequest,
    raw: &Value,
) -> Result<Answer<T>, String> {
    let _ = (request, raw);
    todo!()
}
