//! A round that ended at a step without all its answers: the continuation to seal, and what
//! sealing it needs from the round (runtime, binding, this request's capabilities). Kept apart
//! from the round so that the body's outcome ([`Flow`](super::Flow)) can carry it without
//! carrying the round itself.

use std::sync::Arc;

use rmcp::model::{InputRequests, InputRequiredResult};

use crate::capability::{self, ClientCaps};
use crate::error::MrtrError;
use crate::runtime::Runtime;
use crate::seal::{Binding, Continuation};

/// A suspended body: the continuation it ends with and the round's sealing context.
pub struct Suspension {
    /// The handler's path and the step, for the round's log line and counter.
    pub(super) handler: &'static str,
    pub(super) step: &'static str,
    pub(super) runtime: Arc<Runtime>,
    pub(super) binding: Binding,
    pub(super) caps: ClientCaps,
    pub(super) continuation: Continuation,
}

impl Suspension {
    /// Gates the unanswered asks on this request's capabilities and seals the continuation.
    pub(super) fn seal(self) -> Result<InputRequiredResult, MrtrError> {
        let continuation = &self.continuation;
        capability::gate(&self.caps, continuation.unanswered().map(|(_, r)| r))?;
        let mut input_requests = InputRequests::new();
        for (key, request) in continuation.unanswered() {
            let wire = request.to_rmcp().map_err(|e| {
                MrtrError::Internal(format!(
                    "input request `{key}` does not fit rmcp's model: {e}"
                ))
            })?;
            input_requests.insert(key.clone(), wire);
        }
        let token = self.runtime.sealer.seal(continuation, &self.binding)?;
        let asked = crate::observe::Keys(&input_requests);
        crate::observe::suspended(self.handler, self.step, &asked);
        Ok(InputRequiredResult::new(Some(input_requests), Some(token)))
    }
}
