//! The runtime half of a lowered handler: one round of the generated state machine.
//!
//! Reading order: `ToolCall::begin` (in `call`) opens and checks the incoming state and builds
//! an [`Io`]; the generated body restores its slots from [`Io::resume_step`] and
//! [`Io::carried`], registers asks with [`Io::ask`], decodes answers with [`Io::take`] and either
//! continues, awaits a legacy client ([`Io::ask_live`]) or returns [`Io::suspend`]; finally
//! [`Io::finish_tool`] turns the outcome into an rmcp response, sealing a new continuation when
//! the body suspended.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use rmcp::handler::server::prompt::IntoGetPromptResult;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, GetPromptResponse, InputRequests, ProtocolVersion};
use rmcp::{ErrorData, Peer, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::answer::{self, Answer};
use crate::capability::{self, ClientCaps};
use crate::carry::{SlotReader, SlotWriter};
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

/// One resume point of a lowered handler, for documentation and listings.
#[derive(Debug)]
pub struct StepInfo {
    /// The step enum's variant name, as sealed in `requestState`.
    pub name: &'static str,
    /// The wire keys asked at this step (`confirm#{i0}` for per-iteration keys).
    pub keys: &'static [&'static str],
    /// The locals carried to this step.
    pub carried: &'static [&'static str],
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

/// A suspended body: where it stopped and what it carries.
pub struct Suspension {
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
    },
}

/// One round of one handler.
pub struct Io {
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
}

impl Io {
    pub(crate) fn modern(
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
            mode: Mode::Modern { runtime, binding },
            caps,
            resumed,
            pending,
            answered,
            incoming,
            refused: BTreeMap::new(),
            round,
        }
    }

    pub(crate) fn live(
        peer: Peer<RoleServer>,
        version: ProtocolVersion,
        caps: ClientCaps,
        max_attempts: u32,
    ) -> Self {
        Io {
            mode: Mode::Live {
                peer,
                version,
                max_attempts,
                attempts: 0,
            },
            caps,
            resumed: None,
            pending: BTreeMap::new(),
            answered: BTreeMap::new(),
            incoming: BTreeMap::new(),
            refused: BTreeMap::new(),
            round: 0,
        }
    }

    /// The step this round resumes at, if the request carried a valid continuation.
    pub fn resume_step(&self) -> Option<&str> {
        self.resumed.as_ref().map(|c| c.step.as_str())
    }

    /// Checks the resumed step's layout fingerprint: the last check before any slot is trusted.
    pub fn check_fingerprint(&self, expected: u64) -> Result<(), MrtrError> {
        match &self.resumed {
            Some(c) if c.fingerprint == expected => Ok(()),
            Some(c) => Err(MrtrError::RejectedState(format!(
                "layout fingerprint {:016x} of step `{}` does not match this build ({expected:016x})",
                c.fingerprint, c.step
            ))),
            None => Err(MrtrError::Internal("no continuation to check".into())),
        }
    }

    /// Reads the resumed continuation's carried locals.
    pub fn carried(&self) -> SlotReader<'_> {
        SlotReader::new(
            self.resumed
                .as_ref()
                .map_or(&[][..], |c| c.carried.as_slice()),
        )
    }

    /// A step whose name this build does not know.
    pub fn unknown_step(&self) -> MrtrError {
        MrtrError::RejectedState(format!(
            "unknown step `{}`",
            self.resume_step().unwrap_or("")
        ))
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
    pub async fn ask_live(&mut self) -> Result<(), MrtrError> {
        let unanswered: Vec<(String, InputRequest)> = self
            .unanswered()
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect();
        let Mode::Live {
            peer,
            version,
            max_attempts,
            attempts,
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
        let replies = futures::future::join_all(
            unanswered
                .iter()
                .map(|(_, request)| crate::call::send_live(&peer, &version, request)),
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

    /// Modern: ends this round at `step`; the parked slots are already in `slots`.
    pub fn suspend<T>(
        &mut self,
        step: &'static str,
        fingerprint: u64,
        slots: SlotWriter,
    ) -> Flow<T> {
        match slots.into_result() {
            Ok(carried) => Flow::Suspend(Suspension {
                step,
                fingerprint,
                carried,
            }),
            Err(error) => Flow::Fail(error),
        }
    }

    /// Turns the body's outcome into a `tools/call` response.
    pub fn finish_tool<R>(self, out: Lifted<R>) -> Result<CallToolResponse, ErrorData>
    where
        R: Lift + IntoCallToolResult,
    {
        match self.conclude::<R>(out)? {
            Concluded::Returned(value) => value.into_call_tool_result(),
            Concluded::InputRequired(result) => Ok(CallToolResponse::InputRequired(result)),
        }
    }

    /// Turns the body's outcome into a `prompts/get` response.
    pub fn finish_prompt<R>(self, out: Lifted<R>) -> Result<PromptOutcome, ErrorData>
    where
        R: Lift + IntoGetPromptResult,
    {
        Ok(PromptOutcome(match self.conclude::<R>(out)? {
            Concluded::Returned(value) => value.into_get_prompt_result()?,
            Concluded::InputRequired(result) => GetPromptResponse::InputRequired(result),
        }))
    }

    /// Turns the body's outcome into a `resources/read` response.
    pub fn finish_resource<R>(
        self,
        out: Lifted<R>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData>
    where
        R: Lift + IntoReadResourceResponse,
    {
        match self.conclude::<R>(out)? {
            Concluded::Returned(value) => value.into_read_resource_response(),
            Concluded::InputRequired(result) => {
                Ok(rmcp::model::ReadResourceResponse::InputRequired(result))
            }
        }
    }

    /// What every request kind does with the body's outcome: hand back the user's value,
    /// report a runtime failure, or seal the suspension.
    fn conclude<R: Lift>(self, out: Lifted<R>) -> Result<Concluded<R>, ErrorData> {
        match out {
            Ok(Flow::Done(value)) => Ok(Concluded::Returned(R::join(Ok(value)))),
            Err(error) => Ok(Concluded::Returned(R::join(Err(error)))),
            Ok(Flow::Fail(error)) => Err(error.into()),
            Ok(Flow::Suspend(suspension)) => Ok(Concluded::InputRequired(self.seal(suspension)?)),
        }
    }

    /// Gates the unanswered asks on this request's capabilities and seals the continuation.
    pub(crate) fn seal(
        self,
        suspension: Suspension,
    ) -> Result<rmcp::model::InputRequiredResult, MrtrError> {
        let Mode::Modern { runtime, binding } = &self.mode else {
            return Err(MrtrError::Internal("a legacy round suspended".into()));
        };
        capability::gate(&self.caps, self.unanswered().map(|(_, r)| r))?;
        let mut input_requests = InputRequests::new();
        for (key, request) in self.unanswered() {
            let wire = serde_json::to_value(request)
                .and_then(serde_json::from_value)
                .map_err(|e| {
                    MrtrError::Internal(format!(
                        "input request `{key}` does not fit rmcp's model: {e}"
                    ))
                })?;
            input_requests.insert(key.clone(), wire);
        }
        let continuation = Continuation {
            step: suspension.step.to_owned(),
            fingerprint: suspension.fingerprint,
            round: self.round + 1,
            pending: self.pending.clone(),
            answered: self.answered.clone(),
            carried: suspension.carried,
        };
        let token = runtime.sealer.seal(&continuation, binding)?;
        Ok(rmcp::model::InputRequiredResult::new(
            Some(input_requests),
            Some(token),
        ))
    }
}
