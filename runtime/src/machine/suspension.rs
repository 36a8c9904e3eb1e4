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
    /// Gates the unanswered asks on this request's capabilities and seals the continuation,
    /// then moves those asks into rmcp's model: sealed first, so that nothing is cloned.
    pub(super) fn seal(self) -> Result<InputRequiredResult, MrtrError> {
        let Suspension {
            handler,
            step,
            runtime,
            binding,
            caps,
            continuation,
        } = self;
        capability::gate(&caps, continuation.unanswered().map(|(_, r)| r))?;
        let token = runtime.sealer.seal(&continuation, &binding)?;
        let mut input_requests = InputRequests::new();
        for (key, request) in continuation.into_unanswered() {
            let wire = request.into_rmcp().map_err(|e| {
                MrtrError::Internal(format!(
                    "input request `{key}` does not fit rmcp's model: {e}"
                ))
            })?;
            input_requests.insert(key, wire);
        }
        let asked = crate::observe::Keys(&input_requests);
        crate::observe::suspended(handler, step, &asked);
        Ok(InputRequiredResult::new(Some(input_requests), Some(token)))
    }
}
