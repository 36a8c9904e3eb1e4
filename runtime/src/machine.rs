//! The runtime half of a lowered handler: one round of the generated state machine.
//!
//! Reading order: the method rmcp registers boxes the lowered body and hands it to
//! [`tool_response`] (or [`prompt_response`], [`resource_response`]). The body opens the round
//! with `ToolCall::open` (in `call`), which checks the incoming state and builds an [`Io`];
//! restores its slots with [`Io::restore`]; registers asks with [`Io::ask`], decodes answers with
//! [`Io::take`] and either continues, awaits a legacy client ([`Io::ask_live`]) or returns
//! [`Io::suspend`]. The response function turns the outcome into an rmcp response, sealing a new
//! continuation when the body suspended.
//!
//! The split keeps per-handler code small: everything generic only over the return type lives
//! here and is compiled once per return type, not once per handler.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::{BoxFuture, LocalBoxFuture};
use rmcp::handler::server::prompt::IntoGetPromptResult;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, GetPromptResponse, InputRequests, JsonObject, ProtocolVersion,
    ReadResourceResponse,
};
use rmcp::{ErrorData, Peer, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::answer::{self, Answer};
use crate::capability::{self, ClientCaps};
use crate::carry::{Slots, each_selected, step_fingerprint};
use crate::error::MrtrError;
use crate::request::{Ask, InputRequest};
use crate::runtime::Runtime;
use crate::seal::{Binding, Continuation};

/// Static facts about one lowered handler, emitted by the macro.
#[derive(Debug)]
pub struct Handler {
    /// `module_path!()::fn_name`, for logs.
    pub path: &'static str,
    /// The resume steps, in source order.
    pub steps: &'static [StepInfo],
    /// What the handler's asks can need from a client, as dotted capability paths
    /// (`elicitation.form`, `elicitation.url`, `sampling`, `roots`), derived from its `ask!`s.
    pub capabilities: &'static [&'static str],
}

/// One resume point of a lowered handler.
#[derive(Debug)]
pub struct StepInfo {
    /// The step enum's variant name, as sealed in `requestState`.
    pub name: &'static str,
    /// The wire keys asked at this step (`confirm#{i0}` for per-iteration keys).
    pub keys: &'static [&'static str],
    /// The locals carried to this step, in the order they are saved.
    pub carried: &'static [&'static str],
    /// Where the body resumes: the program counter of the step's arm.
    #[doc(hidden)]
    pub pc: u32,
    /// Which of the handler's slots the step carries (bit `i` = slot `i`).
    #[doc(hidden)]
    pub mask: u64,
    /// Handler path, step, keys and carried names: hashed with the slots' type names into the
    /// step's layout fingerprint.
    pub layout: &'static str,
}

/// What a `#[mrtr_tool(resource)]` handler may return (rmcp has no such trait: resources have no
/// router).
pub trait IntoReadResourceResponse {
    fn into_read_resource_response(self) -> Result<rmcp::model::ReadResourceResponse, ErrorData>;
}

impl IntoReadResourceResponse for rmcp::model::ReadResourceResult {
    fn into_read_resource_response(self) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        Ok(rmcp::model::ReadResourceResponse::Complete(self))
    }
}

impl IntoReadResourceResponse for ErrorData {
    fn into_read_resource_response(self) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        Err(self)
    }
}

impl<T: IntoReadResourceResponse, E: IntoReadResourceResponse> IntoReadResourceResponse
    for Result<T, E>
{
    fn into_read_resource_response(self) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        match self {
            Ok(value) => value.into_read_resource_response(),
            Err(error) => match error.into_read_resource_response() {
                Err(error) => Err(error),
                Ok(_) => Err(ErrorData::internal_error(
                    "a resource handler's error branch produced a result",
                    None,
                )),
            },
        }
    }
}

/// A `prompts/get` outcome in the shape rmcp's prompt router accepts.
pub struct PromptOutcome(pub GetPromptResponse);

impl IntoGetPromptResult for PromptOutcome {
    fn into_get_prompt_result(self) -> Result<GetPromptResponse, ErrorData> {
        Ok(self.0)
    }
}

/// How one run of the body ended.
pub enum Flow<T> {
    /// The body returned.
    Done(T),
    /// The body reached asks it has no answers for; carries the step and its parked slots.
    Suspend(Suspension),
    /// The runtime refused to go on (bad state, missing capability, client failure).
    Fail(MrtrError),
}

/// A suspended body: the round it ends, where it stopped and what it carries.
pub struct Suspension {
    io: Box<Io>,
    step: &'static str,
    fingerprint: u64,
    carried: Vec<u8>,
}

/// A body's outcome once the runtime has dealt with suspensions and failures.
enum Concluded<R> {
    /// The user's own return value, `Ok` or `Err`.
    Returned(R),
    InputRequired(rmcp::model::InputRequiredResult),
}

/// Marks an answer that is absent or does not decode: the key is asked again.
#[derive(Debug)]
pub struct Missing;

/// The user's return type, split so that the lowered body can return `Result<Flow<T>, E>` and
/// every `?` in it keeps converting into the user's own error type.
pub trait Lift: Sized {
    type Ok;
    type Err;
    fn split(self) -> Result<Self::Ok, Self::Err>;
    fn join(result: Result<Self::Ok, Self::Err>) -> Self;
}

impl<T, E> Lift for Result<T, E> {
    type Ok = T;
    type Err = E;
    fn split(self) -> Self {
        self
    }
    fn join(result: Self) -> Self {
        result
    }
}

macro_rules! lift_infallible {
    ($ty:ty $(, for $($generic:ident),*)?) => {
        impl$(<$($generic),*>)? Lift for $ty {
            type Ok = Self;
            type Err = std::convert::Infallible;
            fn split(self) -> Result<Self, std::convert::Infallible> {
                Ok(self)
            }
            fn join(result: Result<Self, std::convert::Infallible>) -> Self {
                match result {
                    Ok(value) => value,
                    Err(never) => match never {},
                }
            }
        }
    };
}

// The non-`Result` return types rmcp's routers accept; `Result<T, E>` is split above.
lift_infallible!(String);
lift_infallible!(&'static str);
lift_infallible!(rmcp::model::CallToolResult);
lift_infallible!(rmcp::model::CallToolResponse);
lift_infallible!(rmcp::model::ContentBlock);
lift_infallible!(Vec<rmcp::model::ContentBlock>);
lift_infallible!(rmcp::model::GetPromptResult);
lift_infallible!(rmcp::model::GetPromptResponse);
lift_infallible!(Vec<rmcp::model::PromptMessage>);
lift_infallible!(rmcp::model::ReadResourceResult);
lift_infallible!(rmcp::Json<T>, for T);

/// What the lowered body returns for a handler whose written return type is `R`.
pub type Lifted<R> = Result<Flow<<R as Lift>::Ok>, <R as Lift>::Err>;

/// Every `return` and the tail of a lowered body go through here.
pub fn done<R: Lift>(value: R) -> Lifted<R> {
    value.split().map(Flow::Done)
}

enum Mode {
    /// 2026-07-28: suspensions are sealed into `requestState`.
    Modern {
        runtime: Arc<Runtime>,
        binding: Binding,
    },
    /// A legacy session: asks go to the client as requests and are awaited in place.
    Live {
        peer: Peer<RoleServer>,
        version: ProtocolVersion,
        max_attempts: u32,
        attempts: u32,
        /// Cancelled by rmcp when the client sends `notifications/cancelled` for this call.
        cancelled: CancellationToken,
    },
}

/// One round of one handler.
pub struct Io {
    handler: &'static Handler,
    mode: Mode,
    caps: ClientCaps,
    /// The continuation this round resumes, if any.
    resumed: Option<Continuation>,
    /// Asks of the current step, by wire key.
    pending: BTreeMap<String, InputRequest>,
    /// Valid answers of the current step received so far (in this or earlier rounds).
    answered: BTreeMap<String, Value>,
    /// This request's `inputResponses` (or, live, the answers just received), not yet used.
    incoming: BTreeMap<String, Value>,
    /// Live only: keys whose request the legacy client failed, i.e. the user refused.
    refused: BTreeMap<String, String>,
    round: u32,
    /// The request's arguments, for a `Parameters<T>` the body needs again (`Io::reparse`).
    arguments: Option<JsonObject>,
}

impl Io {
    pub(crate) fn modern(
        handler: &'static Handler,
        runtime: Arc<Runtime>,
        binding: Binding,
        caps: ClientCaps,
        resumed: Option<Continuation>,
        incoming: BTreeMap<String, Value>,
    ) -> Self {
        let (pending, answered, round) = match &resumed {
            Some(c) => (c.pending.clone(), c.answered.clone(), c.round),
            None => Default::default(),
        };
        Io {
            handler,
            mode: Mode::Modern { runtime, binding },
            caps,
            resumed,
            pending,
            answered,
            incoming,
            refused: BTreeMap::new(),
            round,
            arguments: None,
        }
    }

    pub(crate) fn live(
        handler: &'static Handler,
        peer: Peer<RoleServer>,
        version: ProtocolVersion,
        caps: ClientCaps,
        max_attempts: u32,
    ) -> Self {
        Io {
            handler,
            mode: Mode::Live {
                peer,
                version,
                max_attempts,
                attempts: 0,
                cancelled: CancellationToken::new(),
            },
            caps,
            resumed: None,
            pending: BTreeMap::new(),
            answered: BTreeMap::new(),
            incoming: BTreeMap::new(),
            refused: BTreeMap::new(),
            round: 0,
            arguments: None,
        }
    }

    pub(crate) fn with_arguments(mut self, arguments: Option<JsonObject>) -> Self {
        self.arguments = arguments;
        self
    }

    /// Live only: the call's cancellation token, raced against every pending ask.
    pub(crate) fn with_cancellation(mut self, token: CancellationToken) -> Self {
        if let Mode::Live { cancelled, .. } = &mut self.mode {
            *cancelled = token;
        }
        self
    }

    /// A `Parameters<T>` decoded again from this request's arguments, as rmcp decoded it for
    /// the handler: for a parameter the body partly moves before an arm boundary, which cannot
    /// be parked whole (every 2026-07-28 round decodes it afresh anyway).
    pub fn reparse<T: DeserializeOwned>(&self) -> Result<Parameters<T>, MrtrError> {
        let arguments = Value::Object(self.arguments.clone().unwrap_or_default());
        serde_json::from_value(arguments)
            .map(Parameters)
            .map_err(|e| {
                MrtrError::Internal(format!(
                    "the arguments rmcp decoded for this handler no longer decode: {e}"
                ))
            })
    }

    /// Where the body starts: `start` on a first round, else the resumed step's arm once its
    /// layout fingerprint matches this build and its carried locals are back in `slots`.
    pub fn restore(&mut self, slots: &mut impl Slots, start: u32) -> Result<u32, MrtrError> {
        let Some(resumed) = &self.resumed else {
            return Ok(start);
        };
        let step = self
            .handler
            .steps
            .iter()
            .find(|s| s.name == resumed.step)
            .ok_or_else(|| MrtrError::RejectedState(format!("unknown step `{}`", resumed.step)))?;
        let expected = step_fingerprint(step.layout, slots, step.mask);
        if resumed.fingerprint != expected {
            return Err(MrtrError::RejectedState(format!(
                "layout fingerprint {:016x} of step `{}` does not match this build ({expected:016x})",
                resumed.fingerprint, step.name
            )));
        }
        let mut rest = resumed.carried.as_slice();
        let mut failure = None;
        each_selected(slots, step.mask, |i, slot| {
            if failure.is_none()
                && let Err(e) = slot.restore(&mut rest)
            {
                let name = step.carried.get(i).copied().unwrap_or("?");
                failure = Some(MrtrError::RejectedState(format!(
                    "carried local `{name}`: {e}"
                )));
            }
        });
        if let Some(error) = failure {
            return Err(error);
        }
        if !rest.is_empty() {
            return Err(MrtrError::RejectedState(format!(
                "{} unread bytes after the carried locals",
                rest.len()
            )));
        }
        Ok(step.pc)
    }

    /// The arm of step `step` (its index in the handler's steps), where a legacy round goes on
    /// once the client has answered.
    pub fn resume_pc(&self, step: usize) -> u32 {
        self.handler.steps.get(step).map_or(u32::MAX, |s| s.pc)
    }

    /// Registers one ask of the step being entered; returns the marker that types its answer.
    pub fn ask<T>(&mut self, key: impl Into<String>, ask: Ask<T>) -> PhantomData<T> {
        self.pending.insert(key.into(), ask.into_request());
        PhantomData
    }

    /// Decodes the answer to `key`, from earlier partial rounds or from this request.
    ///
    /// A malformed value is dropped and reported as [`Missing`], so the key is asked again.
    pub fn take<T: DeserializeOwned>(
        &mut self,
        _marker: &PhantomData<T>,
        key: &str,
    ) -> Result<Answer<T>, Missing> {
        let request = self.pending.get(key).ok_or(Missing)?;
        if let Some(reason) = self.refused.remove(key) {
            tracing::debug!(target: "mrtr", key, %reason, "legacy client refused the request");
            // A dismissed elicitation is a cancel; a refused sampling or roots request, a decline.
            return Ok(match request.method {
                crate::request::InputMethod::Elicitation => Answer::Cancel,
                _ => Answer::Decline,
            });
        }
        if let Some(raw) = self.answered.get(key)
            && let Ok(answer) = answer::decode(request, raw)
        {
            return Ok(answer);
        }
        let raw = self.incoming.remove(key).ok_or(Missing)?;
        match answer::decode(request, &raw) {
            Ok(answer) => {
                self.answered.insert(key.to_owned(), raw);
                Ok(answer)
            }
            Err(reason) => {
                tracing::debug!(target: "mrtr", key, %reason, "input response does not decode; asking again");
                Err(Missing)
            }
        }
    }

    /// Every ask of the step is answered: forget them before the next step registers its own.
    pub fn settle(&mut self) {
        self.pending.clear();
        self.answered.clear();
        if let Mode::Live { attempts, .. } = &mut self.mode {
            *attempts = 0;
        }
    }

    /// The client capabilities this request declared.
    pub fn capabilities(&self) -> &ClientCaps {
        &self.caps
    }

    pub fn is_live(&self) -> bool {
        matches!(self.mode, Mode::Live { .. })
    }

    fn unanswered(&self) -> impl Iterator<Item = (&String, &InputRequest)> {
        self.pending
            .iter()
            .filter(|(key, _)| !self.answered.contains_key(*key))
    }

    /// Legacy: sends every unanswered ask of the step to the client at once and waits.
    ///
    /// Boxed here so that the future's type, and the rmcp request machinery inside it, is
    /// compiled once in this crate instead of inside every handler's future.
    pub fn ask_live(&mut self) -> BoxFuture<'_, Result<(), MrtrError>> {
        Box::pin(self.ask_live_now())
    }

    async fn ask_live_now(&mut self) -> Result<(), MrtrError> {
        let unanswered: Vec<(String, InputRequest)> = self
            .unanswered()
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect();
        let Mode::Live {
            peer,
            version,
            max_attempts,
            attempts,
            cancelled,
        } = &mut self.mode
        else {
            return Err(MrtrError::Internal(
                "ask_live on a 2026-07-28 request".into(),
            ));
        };
        *attempts += 1;
        if *attempts > *max_attempts {
            let keys: Vec<&String> = unanswered.iter().map(|(key, _)| key).collect();
            return Err(MrtrError::Client(format!(
                "the client answered {keys:?} {max_attempts} times with content that does not match the request"
            )));
        }
        capability::gate(&self.caps, unanswered.iter().map(|(_, r)| r))?;
        let peer = peer.clone();
        let version = version.clone();
        let cancelled = cancelled.clone();
        let replies = futures::future::join_all(
            unanswered
                .iter()
                .map(|(_, request)| crate::call::send_live(&peer, &version, request, &cancelled)),
        )
        .await;
        for ((key, _), reply) in unanswered.into_iter().zip(replies) {
            match reply? {
                crate::call::LiveReply::Answered(value) => {
                    self.incoming.insert(key, value);
                }
                crate::call::LiveReply::Refused(reason) => {
                    self.refused.insert(key, reason);
                }
            }
        }
        Ok(())
    }

    /// Modern: ends this round at step `step` (its index in the handler's steps), saving the
    /// slots the step carries.
    pub fn suspend<T>(self, slots: &mut impl Slots, step: usize) -> Flow<T> {
        let Some(info) = self.handler.steps.get(step) else {
            return Flow::Fail(MrtrError::Internal(format!(
                "mrtr lowering bug: no step {step}"
            )));
        };
        // The token holds the carried bytes base64-encoded: once they alone are past the cap,
        // stop saving instead of encoding the remaining locals.
        let cap = match &self.mode {
            Mode::Modern { runtime, .. } => runtime.sealer.max_bytes(),
            Mode::Live { .. } => usize::MAX,
        };
        let mut carried = Vec::new();
        let mut failure = None;
        each_selected(slots, info.mask, |i, slot| {
            let name = info.carried.get(i).copied().unwrap_or("?");
            match slot.save(&mut carried) {
                _ if failure.is_some() => {}
                Ok(true) if carried.len().saturating_mul(4) / 3 > cap => {
                    failure = Some(MrtrError::StateTooLarge(format!(
                        "the locals step `{}` carries are {} bytes once `{name}` is saved, \
                         over the cap of {cap} bytes for the whole requestState; carry ids \
                         instead of payloads, or raise MRTR_STATE_MAX_BYTES",
                        info.name,
                        carried.len()
                    )))
                }
                Ok(true) => {}
                Ok(false) => {
                    failure = Some(MrtrError::Internal(format!(
                        "mrtr lowering bug: slot `{name}` is empty at suspension"
                    )))
                }
                Err(e) => {
                    failure = Some(MrtrError::Internal(format!(
                        "cannot encode carried local `{name}`: {e}"
                    )))
                }
            }
        });
        if let Some(error) = failure {
            return Flow::Fail(error);
        }
        let fingerprint = step_fingerprint(info.layout, slots, info.mask);
        Flow::Suspend(Suspension {
            io: Box::new(self),
            step: info.name,
            fingerprint,
            carried,
        })
    }
}

/// What every request kind does with the body's outcome: hand back the user's value, report a
/// runtime failure, or seal the suspension.
fn conclude<R: Lift>(out: Lifted<R>) -> Result<Concluded<R>, ErrorData> {
    match out {
        Ok(Flow::Done(value)) => Ok(Concluded::Returned(R::join(Ok(value)))),
        Err(error) => Ok(Concluded::Returned(R::join(Err(error)))),
        Ok(Flow::Fail(error)) => Err(error.into()),
        Ok(Flow::Suspend(suspension)) => Ok(Concluded::InputRequired(suspension.seal()?)),
    }
}

impl Suspension {
    /// Gates the unanswered asks on this request's capabilities and seals the continuation.
    fn seal(self) -> Result<rmcp::model::InputRequiredResult, MrtrError> {
        let io = &*self.io;
        let Mode::Modern { runtime, binding } = &io.mode else {
            return Err(MrtrError::Internal("a legacy round suspended".into()));
        };
        capability::gate(&io.caps, io.unanswered().map(|(_, r)| r))?;
        let mut input_requests = InputRequests::new();
        for (key, request) in io.unanswered() {
            let wire = request.to_rmcp().map_err(|e| {
                MrtrError::Internal(format!(
                    "input request `{key}` does not fit rmcp's model: {e}"
                ))
            })?;
            input_requests.insert(key.clone(), wire);
        }
        let continuation = Continuation {
            step: self.step.to_owned(),
            fingerprint: self.fingerprint,
            round: io.round + 1,
            pending: io.pending.clone(),
            answered: io.answered.clone(),
            carried: self.carried.clone(),
        };
        let token = runtime.sealer.seal(&continuation, binding)?;
        Ok(rmcp::model::InputRequiredResult::new(
            Some(input_requests),
            Some(token),
        ))
    }
}

/// The future rmcp awaits for a `tools/call`: the boxed body, then its outcome as a response.
pub fn tool_response<'a, R>(
    body: BoxFuture<'a, Lifted<R>>,
) -> BoxFuture<'a, Result<CallToolResponse, ErrorData>>
where
    R: Lift + IntoCallToolResult + 'a,
{
    Box::pin(async move { tool_result::<R>(body.await) })
}

/// [`tool_response`] for `#[tool(local)]` handlers, whose futures need not be `Send`.
pub fn tool_response_local<'a, R>(
    body: LocalBoxFuture<'a, Lifted<R>>,
) -> LocalBoxFuture<'a, Result<CallToolResponse, ErrorData>>
where
    R: Lift + IntoCallToolResult + 'a,
{
    Box::pin(async move { tool_result::<R>(body.await) })
}

fn tool_result<R: Lift + IntoCallToolResult>(
    out: Lifted<R>,
) -> Result<CallToolResponse, ErrorData> {
    match conclude::<R>(out)? {
        Concluded::Returned(value) => value.into_call_tool_result(),
        Concluded::InputRequired(result) => Ok(CallToolResponse::InputRequired(result)),
    }
}

/// The future rmcp awaits for a `prompts/get`.
pub fn prompt_response<'a, R>(
    body: BoxFuture<'a, Lifted<R>>,
) -> BoxFuture<'a, Result<PromptOutcome, ErrorData>>
where
    R: Lift + IntoGetPromptResult + 'a,
{
    Box::pin(async move { prompt_result::<R>(body.await) })
}

/// [`prompt_response`] for `#[prompt(local)]` handlers.
pub fn prompt_response_local<'a, R>(
    body: LocalBoxFuture<'a, Lifted<R>>,
) -> LocalBoxFuture<'a, Result<PromptOutcome, ErrorData>>
where
    R: Lift + IntoGetPromptResult + 'a,
{
    Box::pin(async move { prompt_result::<R>(body.await) })
}

fn prompt_result<R: Lift + IntoGetPromptResult>(
    out: Lifted<R>,
) -> Result<PromptOutcome, ErrorData> {
    Ok(PromptOutcome(match conclude::<R>(out)? {
        Concluded::Returned(value) => value.into_get_prompt_result()?,
        Concluded::InputRequired(result) => GetPromptResponse::InputRequired(result),
    }))
}

/// What a `#[mrtr_tool(resource)]` method returns to the server's `read_resource`.
pub fn resource_response<'a, R>(
    body: BoxFuture<'a, Lifted<R>>,
) -> BoxFuture<'a, Result<ReadResourceResponse, ErrorData>>
where
    R: Lift + IntoReadResourceResponse + 'a,
{
    Box::pin(async move {
        match conclude::<R>(body.await)? {
            Concluded::Returned(value) => value.into_read_resource_response(),
            Concluded::InputRequired(result) => Ok(ReadResourceResponse::InputRequired(result)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::BindDigest;
    use crate::carry::{Slot, slot};
    use crate::config::StateConfig;
    use crate::seal::keyring::KeyRing;

    static HANDLER: Handler = Handler {
        path: "tests::handler",
        steps: &[StepInfo {
            name: "AfterX",
            keys: &["x"],
            carried: &["count", "label"],
            pc: 3,
            mask: 0b11,
            layout: "mrtr-lowering/1|tests::handler|AfterX|x|count,label",
        }],
        capabilities: &["elicitation.form"],
    };

    type Carried = (Slot<u32>, Slot<String>);

    fn io(resumed: Option<Continuation>) -> Io {
        let keys = KeyRing::ephemeral().expect("a random key");
        let runtime = Arc::new(Runtime::new(StateConfig::new("tests", keys)).expect("runtime"));
        let binding = Binding {
            bind: BindDigest([0; 32]),
            principal: None,
        };
        Io::modern(
            &HANDLER,
            runtime,
            binding,
            ClientCaps::default(),
            resumed,
            BTreeMap::new(),
        )
    }

    fn filled() -> Carried {
        let mut slots: Carried = (slot(), slot());
        slots.0.value = Some(7);
        slots.1.value = Some("seven".into());
        slots
    }

    /// What `suspend` saved for the filled slots: the continuation a later round presents.
    fn suspended() -> Continuation {
        let Flow::<()>::Suspend(s) = io(None).suspend(&mut filled(), 0) else {
            panic!("filled slots suspend");
        };
        Continuation {
            step: s.step.to_owned(),
            fingerprint: s.fingerprint,
            round: 1,
            pending: BTreeMap::new(),
            answered: BTreeMap::new(),
            carried: s.carried,
        }
    }

    fn rejection(resumed: Continuation) -> String {
        let mut slots: Carried = (slot(), slot());
        match io(Some(resumed)).restore(&mut slots, 0) {
            Err(MrtrError::RejectedState(reason)) => reason,
            other => panic!("expected a rejected state, got {other:?}"),
        }
    }

    #[test]
    fn a_first_round_starts_at_the_start_arm() {
        let mut slots: Carried = (slot(), slot());
        assert_eq!(io(None).restore(&mut slots, 0).expect("no state"), 0);
        assert!(slots.0.value.is_none() && slots.1.value.is_none());
    }

    #[test]
    fn a_suspended_step_restores_its_slots_and_resumes_at_its_arm() {
        let mut slots: Carried = (slot(), slot());
        let pc = io(Some(suspended()))
            .restore(&mut slots, 0)
            .expect("restores");
        assert_eq!(pc, 3);
        assert_eq!(slots.0.value, Some(7));
        assert_eq!(slots.1.value.as_deref(), Some("seven"));
    }

    #[test]
    fn a_step_this_build_does_not_have_is_rejected() {
        let mut resumed = suspended();
        resumed.step = "AfterY".into();
        assert!(rejection(resumed).contains("unknown step"));
    }

    #[test]
    fn a_step_whose_layout_fingerprint_differs_is_rejected() {
        let mut resumed = suspended();
        resumed.fingerprint ^= 1;
        assert!(rejection(resumed).contains("layout fingerprint"));
    }

    #[test]
    fn carried_bytes_that_do_not_decode_are_rejected_naming_the_local() {
        let mut resumed = suspended();
        resumed.carried = vec![0xff, 0x00];
        assert!(rejection(resumed).contains("carried local `count`"));
    }

    #[test]
    fn trailing_carried_bytes_are_rejected() {
        let mut resumed = suspended();
        resumed.carried.push(0x01);
        assert!(rejection(resumed).contains("unread bytes"));
    }

    #[test]
    fn suspending_with_an_empty_slot_fails_instead_of_sealing() {
        let mut slots: Carried = (slot(), slot());
        slots.0.value = Some(1);
        match io(None).suspend::<()>(&mut slots, 0) {
            Flow::Fail(MrtrError::Internal(reason)) => {
                assert!(reason.contains("slot `label` is empty"), "{reason}")
            }
            _ => panic!("an empty slot must not be sealed"),
        }
    }

    #[test]
    fn suspending_at_an_unknown_step_index_fails() {
        assert!(matches!(
            io(None).suspend::<()>(&mut filled(), 5),
            Flow::Fail(MrtrError::Internal(_))
        ));
        assert_eq!(io(None).resume_pc(5), u32::MAX);
    }
}
