#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! Input requests: what an `ask!` sends, with the exact 2026-07-28 payloads.
//!
//! OWNER: helper B fills in the bodies marked `todo!`; the signatures are the contract the
//! machine and the macro rely on.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::elicit::Elicit;

/// The three methods an `inputRequests` entry may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InputMethod {
    #[serde(rename = "elicitation/create")]
    Elicitation,
    #[serde(rename = "sampling/createMessage")]
    Sampling,
    #[serde(rename = "roots/list")]
    Roots,
}

/// One `inputRequests` entry: a bare `{method, params}` (no `jsonrpc`, no `id`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    pub method: InputMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl InputRequest {
    /// URL-mode elicitation (`params.mode == "url"`).
    pub fn is_url_elicitation(&self) -> bool {
        todo!()
    }
}

/// A typed input request: `T` is what an accepted answer decodes to.
#[must_use = "an Ask does nothing until it is passed to `ask!`"]
pub struct Ask<T> {
    request: InputRequest,
    answer: PhantomData<fn() -> T>,
}

impl<T> Ask<T> {
    pub fn from_request(request: InputRequest) -> Self {
        Self {
            request,
            answer: PhantomData,
        }
    }
    pub fn request(&self) -> &InputRequest {
        &self.request
    }
    pub fn into_request(self) -> InputRequest {
        self.request
    }
}

/// Form elicitation whose `requestedSchema` is derived from `T`.
pub fn elicit<T: Elicit>(message: impl Into<String>) -> Ask<T> {
    let _ = message;
    todo!()
}

/// URL-mode elicitation; an accepted answer only means the user agreed to open `url`.
pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> Ask<()> {
    let _ = (message, url);
    todo!()
}

/// `sampling/createMessage` with the same parameters the legacy `Peer::create_message` took.
pub fn sample(
    params: rmcp::model::CreateMessageRequestParams,
) -> Ask<rmcp::model::CreateMessageResult> {
    let _ = params;
    todo!()
}

/// `roots/list`.
pub fn roots() -> Ask<rmcp::model::ListRootsResult> {
    todo!()
}
