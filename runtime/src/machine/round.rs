//! One round of one handler: the state the generated body reads and writes between its arms
//! (the asks of the current step, the answers so far, the era), and the operations it calls
//! (`restore`, `ask`, `take`, `settle`, `ask_live`, `suspend`).

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{JsonObject, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::answer::{self, Answer};
use crate::capability::{self, ClientCaps};
use crate::carry::{Slots, each_selected, step_fingerprint};
use crate::error::MrtrError;
use crate::request::{Ask, Asks, InputRequest};
use crate::runtime::Runtime;
use crate::seal::{Binding, Continuation};

use super::compose::{Frame, Poll};
use super::handler::{Handler, StepInfo};
use super::lift::Flow;
use super::suspension::Suspension;

/// A program counter no body has an arm for: where a failed round's dispatch loop goes.
const NO_ARM: u32 = u32::MAX;

/// The step index a dispatch loop leaves with once the round has failed: no step has it, and
/// the step exit reports the failure before it looks.
const FAILED: usize = usize::MAX;

/// Marks an answer that is absent or does not decode: the key is asked again.
#[derive(Debug)]
pub struct Missing;

/// A legacy client's refusal of an ask, as the answer it stands for.
enum Refusal {
    Cancel,
    Decline,
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

/// One round of one handler, boxed: a lowered body holds it across its `.await`s and moves it
/// between the runtime's calls, so it travels as a pointer (inline, its 592 bytes were stored
/// twice in every handler's future, once as the argument and once as the local it becomes).
/// Its operations are `Round`'s, reached through `Deref`.
pub struct Io(Box<Round>);

/// The state of one round, behind [`Io`].
pub struct Round {
    handler: &'static Handler,
    mode: Mode,
    caps: ClientCaps,
    /// The continuation this round resumes, if any.
    resumed: Option<Continuation>,
    /// Asks of the current step, by wire key.
    pending: Asks,
    /// Valid answers of the current step received so far (in this or earlier rounds).
    answered: BTreeMap<String, Value>,
    /// This request's `inputResponses` (or, live, the answers just received), not yet used.
    incoming: BTreeMap<String, Value>,
    /// Live only: keys whose request the legacy client failed, i.e. the user refused.
    refused: BTreeMap<String, String>,
    round: u32,
    /// The request's arguments, for a `Parameters<T>` the body needs again (`Io::reparse`).
    arguments: Option<JsonObject>,
    /// The key prefix of the helper being run: its call sites' keys, each followed by `.`.
    prefix: String,
    /// rmcp's context of this request, for helpers that take `&RequestContext` or `&Peer`.
    context: Option<RequestContext<RoleServer>>,
    /// A runtime failure (a refused continuation, a missing slot, a helper's or a legacy
    /// client's failure) on its way to the step exit that reports it, so that a lowered body
    /// leaves its dispatch loop instead of matching a `Result` at every site (see
    /// [`Io::settled`], [`Io::lost`]).
    failed: Option<MrtrError>,
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
        let mut resumed = resumed;
        // Moved, not cloned: restoring the step needs only its name, fingerprint and bytes.
        let (pending, answered, round) = match &mut resumed {
            Some(c) => (
                std::mem::take(&mut c.pending),
                std::mem::take(&mut c.answered),
                c.round,
            ),
            None => Default::default(),
        };
        Io(Box::new(Round {
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
            prefix: String::new(),
            context: None,
            failed: None,
        }))
    }

    pub(crate) fn live(
        handler: &'static Handler,
        peer: Peer<RoleServer>,
        version: ProtocolVersion,
        caps: ClientCaps,
        max_attempts: u32,
    ) -> Self {
        Io(Box::new(Round {
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
            pending: Asks::new(),
            answered: BTreeMap::new(),
            incoming: BTreeMap::new(),
            refused: BTreeMap::new(),
            round: 0,
            arguments: None,
            prefix: String::new(),
            context: None,
            failed: None,
        }))
    }

    pub(crate) fn with_arguments(mut self, arguments: Option<JsonObject>) -> Self {
        self.0.arguments = arguments;
        self
    }

    pub(crate) fn with_context(mut self, context: RequestContext<RoleServer>) -> Self {
        self.0.context = Some(context);
        self
    }

    /// Live only: the call's cancellation token, raced against every pending ask.
    pub(crate) fn with_cancellation(mut self, token: CancellationToken) -> Self {
        if let Mode::Live { cancelled, .. } = &mut self.0.mode {
            *cancelled = token;
        }
        self
    }

    /// Modern: ends this round at step `step` (its index in the handler's steps), saving the
    /// slots the step carries.
    pub fn suspend<T>(self, slots: &mut dyn Slots, step: usize) -> Flow<T> {
        (*self.0).suspend(slots, step)
    }
}

impl std::ops::Deref for Io {
    type Target = Round;

    fn deref(&self) -> &Round {
        &self.0
    }
}

impl std::ops::DerefMut for Io {
    fn deref_mut(&mut self) -> &mut Round {
        &mut self.0
    }
}

impl Round {
    /// A `Parameters<T>` decoded again from this request's arguments, as rmcp decoded it for
    /// the handler: for a parameter the body partly moves before an arm boundary, which cannot
    /// be parked whole (every 2026-07-28 round decodes it afresh anyway). `None` once it no
    /// longer decodes, the failure kept for the step exit.
    pub fn reparse<T: DeserializeOwned>(&mut self) -> Option<Parameters<T>> {
        let arguments = Value::Object(self.arguments.clone().unwrap_or_default());
        match serde_json::from_value(arguments) {
            Ok(value) => Some(Parameters(value)),
            Err(e) => {
                self.fail(MrtrError::Internal(format!(
                    "the arguments rmcp decoded for this handler no longer decode: {e}"
                )));
                None
            }
        }
    }

    /// Where the body starts: `start` on a first round, else the resumed step's arm once its
    /// layout fingerprint matches this build and its carried locals are back in `slots`.
    ///
    /// A refused continuation is kept as the round's failure and the returned counter has no
    /// arm: the body's dispatch loop leaves at once and its exit ([`Io::suspend`]) reports it.
    /// No `Result` to match in every body. The continuation is given back to the replay guard:
    /// none of the body ran, and the instance that sealed it (another build, during a rolling
    /// deploy) may still run it.
    pub fn restore(&mut self, slots: &mut dyn Slots, start: u32) -> u32 {
        match self.restore_resumed(slots, start) {
            Ok(pc) => pc,
            Err(error) => {
                crate::lease::release_held();
                self.fail(error)
            }
        }
    }

    fn restore_resumed(&mut self, slots: &mut dyn Slots, start: u32) -> Result<u32, MrtrError> {
        let Some(resumed) = &self.resumed else {
            return Ok(start);
        };
        let step = self
            .handler
            .steps
            .iter()
            .find(|s| s.name == resumed.step)
            .ok_or_else(|| MrtrError::RejectedState(format!("unknown step `{}`", resumed.step)))?;
        restore_step(step, resumed.fingerprint, &resumed.carried, slots)
    }

    /// A helper's [`restore`](Self::restore): `start` on a fresh entry, else the step of the
    /// frame its caller carried, checked against the helper's own table. A refused frame is
    /// kept as the failure, as `restore` keeps it.
    pub fn restore_frame(
        &mut self,
        helper: &'static Handler,
        fresh: bool,
        frame: Option<Frame>,
        slots: &mut dyn Slots,
        start: u32,
    ) -> u32 {
        if fresh {
            return start;
        }
        match restore_frame_step(helper, frame, slots) {
            Ok(pc) => pc,
            Err(error) => self.fail(error),
        }
    }

    /// Keeps `error` as the round's failure (the first one stays) and returns a program counter
    /// with no arm, so that the dispatch loop leaves for the step exit that reports it.
    fn fail(&mut self, error: MrtrError) -> u32 {
        self.failed.get_or_insert(error);
        NO_ARM
    }

    /// A parked local the arm needs is missing from its slot: a bug in the lowering, kept as
    /// the round's failure (never a panic). Returns the step index the arm leaves the dispatch
    /// loop with; the step exit reports the failure instead of suspending there.
    pub fn lost(&mut self, name: &'static str) -> usize {
        self.failed
            .get_or_insert_with(|| crate::carry::empty_slot(name));
        FAILED
    }

    /// The dispatch loop reached a program counter with no arm: a refused continuation
    /// (already kept by [`restore`](Self::restore)), a failed legacy round, or else a bug in
    /// the lowering. Returns the step index to leave the loop with.
    pub fn no_arm(&mut self) -> usize {
        self.failed.get_or_insert_with(crate::carry::no_arm);
        FAILED
    }

    /// The failure kept for this round, for a body without a dispatch loop to leave.
    pub fn failure(&mut self) -> MrtrError {
        self.failed.take().unwrap_or_else(crate::carry::no_arm)
    }

    /// The arm of step `step` (its index in the handler's steps), where a legacy round goes on
    /// once the client has answered; no arm once [`ask_live`](Self::ask_live) failed.
    pub fn resume_pc(&self, step: usize) -> u32 {
        self.resume_pc_in(self.handler, step)
    }

    /// The step of a helper: where its body goes on once a legacy client has answered.
    pub fn resume_pc_in(&self, helper: &'static Handler, step: usize) -> u32 {
        if self.failed.is_some() {
            return NO_ARM;
        }
        helper.steps.get(step).map_or(NO_ARM, |s| s.pc)
    }

    /// Registers one ask of the step being entered; returns the marker that types its answer.
    pub fn ask<T>(&mut self, key: impl Into<String>, ask: Ask<T>) -> PhantomData<T> {
        let key = key.into();
        let key = if self.prefix.is_empty() {
            key
        } else {
            format!("{}{key}", self.prefix)
        };
        self.pending.insert(key, ask.into_request());
        PhantomData
    }

    /// Enters a helper's call site: every key asked until [`leave`](Self::leave) is prefixed
    /// with `site.`. Returns the prefix to restore.
    pub fn enter(&mut self, site: &str) -> usize {
        let depth = self.prefix.len();
        self.prefix.push_str(site);
        self.prefix.push('.');
        depth
    }

    /// Leaves a call site entered at `depth`, however the helper ended.
    pub fn leave(&mut self, depth: usize) {
        self.prefix.truncate(depth);
    }

    /// `key` as it is on the wire: under the prefix of the helpers being run.
    fn wire_key<'k>(&self, key: &'k str) -> std::borrow::Cow<'k, str> {
        if self.prefix.is_empty() {
            std::borrow::Cow::Borrowed(key)
        } else {
            std::borrow::Cow::Owned(format!("{}{key}", self.prefix))
        }
    }

    /// rmcp's context of this request, for a helper's `&RequestContext<RoleServer>` or
    /// `&Peer<RoleServer>` parameter (bound afresh at every entry: it cannot be carried).
    pub fn request_context(&self) -> Result<RequestContext<RoleServer>, MrtrError> {
        self.context.clone().ok_or_else(|| {
            MrtrError::Internal("this round was opened without rmcp's request context".into())
        })
    }

    /// Decodes the answer to `key`, from earlier partial rounds or from this request.
    ///
    /// A malformed value is dropped and reported as [`Missing`], so the key is asked again.
    pub fn take<T: DeserializeOwned + 'static>(
        &mut self,
        _marker: &PhantomData<T>,
        key: &str,
    ) -> Result<Answer<T>, Missing> {
        let mut decoded = None;
        let refused = self.take_erased(key, &mut |request, raw| {
            decoded = Some(answer::decode::<T>(request, raw)?);
            Ok(())
        })?;
        match (refused, decoded) {
            (Some(Refusal::Cancel), _) => Ok(Answer::Cancel),
            (Some(Refusal::Decline), _) => Ok(Answer::Decline),
            (None, Some(answer)) => Ok(answer),
            (None, None) => Err(Missing),
        }
    }

    /// [`Self::take`] but for the decoding, which `decode` does (and keeps): one copy of the
    /// lookups for every answer type.
    fn take_erased(
        &mut self,
        key: &str,
        decode: &mut dyn FnMut(&InputRequest, &Value) -> Result<(), String>,
    ) -> Result<Option<Refusal>, Missing> {
        let wire = self.wire_key(key);
        let key: &str = &wire;
        let request = self.pending.get(key).ok_or(Missing)?;
        if let Some(reason) = self.refused.remove(key) {
            tracing::debug!(target: "mrtr", key, %reason, "legacy client refused the request");
            // A dismissed elicitation is a cancel; a refused sampling or roots request, a decline.
            return Ok(Some(match request.method {
                crate::request::InputMethod::Elicitation => Refusal::Cancel,
                _ => Refusal::Decline,
            }));
        }
        if let Some(raw) = self.answered.get(key)
            && decode(request, raw).is_ok()
        {
            return Ok(None);
        }
        let raw = self.incoming.remove(key).ok_or(Missing)?;
        match decode(request, &raw) {
            Ok(()) => {
                // A valid answer is kept for the step's other asks: if one of them is still
                // missing, the step is asked again and carries it. The only ask of a step
                // completes it (its arm settles next), so there is nothing to keep it for.
                if self.pending.len() > 1 {
                    self.answered.insert(key.to_owned(), raw);
                }
                Ok(None)
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

    /// Whether the step the dispatch loop left waits for a legacy client: a live round with no
    /// helper failure to report (which `suspend` reports instead).
    pub fn asks_live(&self) -> bool {
        matches!(self.mode, Mode::Live { .. }) && self.failed.is_none()
    }

    /// How a helper's entry ended, as its call site takes it: its value once done, else `None`
    /// and the call site leaves the dispatch loop at its step, whose exit ([`Io::suspend`],
    /// [`Io::suspend_frame`]) seals the frame left in `frame` or reports the failure kept here.
    /// One `let .. else` per site instead of a three-way match, in every body that enters it.
    pub fn settled<R>(&mut self, poll: Poll<R>, frame: &mut Option<Frame>) -> Option<R> {
        match poll {
            Poll::Done(value) => Some(value),
            Poll::Suspend(suspended) => {
                *frame = Some(suspended);
                None
            }
            Poll::Fail(error) => {
                self.failed = Some(error);
                None
            }
        }
    }

    fn unanswered(&self) -> impl Iterator<Item = (&String, &InputRequest)> {
        self.pending
            .iter()
            .filter(|(key, _)| !self.answered.contains_key(*key))
    }

    /// Legacy: sends every unanswered ask of the step to the client at once and waits. A
    /// failure is kept for the step exit: [`resume_pc`](Self::resume_pc) then has no arm.
    ///
    /// Boxed here so that the future's type, and the rmcp request machinery inside it, is
    /// compiled once in this crate instead of inside every handler's future.
    pub fn ask_live(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(error) = self.ask_live_now().await {
                self.fail(error);
            }
        })
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
                .map(|(_, request)| crate::live::send_live(&peer, &version, request, &cancelled)),
        )
        .await;
        for ((key, _), reply) in unanswered.into_iter().zip(replies) {
            match reply? {
                crate::live::LiveReply::Answered(value) => {
                    self.incoming.insert(key, value);
                }
                crate::live::LiveReply::Refused(reason) => {
                    self.refused.insert(key, reason);
                }
            }
        }
        Ok(())
    }

    /// [`Io::suspend`], on the round taken out of its box.
    fn suspend<T>(self, slots: &mut dyn Slots, step: usize) -> Flow<T> {
        match self.suspension(slots, step) {
            Ok(suspension) => Flow::Suspend(suspension),
            Err(error) => Flow::Fail(error),
        }
    }

    /// The suspension itself, one function for every handler (only [`Self::suspend`]'s thin
    /// wrapper is a copy per result type).
    fn suspension(
        mut self,
        slots: &mut dyn Slots,
        step: usize,
    ) -> Result<Box<Suspension>, MrtrError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let Some(info) = self.handler.steps.get(step) else {
            return Err(MrtrError::Internal(format!(
                "mrtr lowering bug: no step {step}"
            )));
        };
        let carried = save_carried(slots, info, self.carried_cap())?;
        let fingerprint = step_fingerprint(info.layout, slots, info.mask);
        // Asked again: params a resumed continuation kept sealed are gated and sent next.
        for request in self.pending.values_mut() {
            request.unseal().map_err(|reason| {
                MrtrError::RejectedState(format!("claims: ask params: {reason}"))
            })?;
        }
        let Mode::Modern { runtime, binding } = self.mode else {
            return Err(MrtrError::Internal("a legacy round suspended".into()));
        };
        Ok(Box::new(Suspension {
            handler: self.handler.path,
            step: info.name,
            runtime,
            binding,
            caps: self.caps,
            continuation: Continuation {
                step: info.name.to_owned(),
                fingerprint,
                round: self.round + 1,
                pending: self.pending,
                answered: self.answered,
                carried,
            },
        }))
    }
}

impl Round {
    /// The token holds the carried bytes base64-encoded: once they alone are past the sealer's
    /// cap, saving stops instead of encoding the remaining locals (a handler's step and a
    /// helper's frame alike).
    fn carried_cap(&self) -> usize {
        match &self.mode {
            Mode::Modern { runtime, .. } => runtime.sealer.max_bytes(),
            Mode::Live { .. } => usize::MAX,
        }
    }

    /// A helper's [`suspend`](Self::suspend): the frame its caller carries, for the helper's
    /// step `step` (or the failure of a helper that step entered). The round goes on in the
    /// caller, which suspends at its own call site.
    pub fn suspend_frame<T>(
        &mut self,
        helper: &'static Handler,
        slots: &mut dyn Slots,
        step: usize,
    ) -> Poll<T> {
        if let Some(error) = self.failed.take() {
            return Poll::Fail(error);
        }
        let Some(info) = helper.steps.get(step) else {
            return Poll::Fail(MrtrError::Internal(format!(
                "mrtr lowering bug: no step {step} in helper `{}`",
                helper.path
            )));
        };
        match save_carried(slots, info, self.carried_cap()) {
            Ok(carried) => Poll::Suspend(Frame::new(
                step as u32,
                step_fingerprint(info.layout, slots, info.mask),
                carried,
            )),
            Err(error) => Poll::Fail(error),
        }
    }
}

/// The arm of the step a helper's carried frame names, once its locals are back in `slots`.
fn restore_frame_step(
    helper: &'static Handler,
    frame: Option<Frame>,
    slots: &mut dyn Slots,
) -> Result<u32, MrtrError> {
    let frame = frame.ok_or_else(|| {
        MrtrError::RejectedState(format!(
            "the continuation holds no frame for helper `{}`",
            helper.path
        ))
    })?;
    let step = usize::try_from(frame.step)
        .ok()
        .and_then(|i| helper.steps.get(i))
        .ok_or_else(|| {
            MrtrError::RejectedState(format!(
                "unknown step {} of helper `{}`",
                frame.step, helper.path
            ))
        })?;
    restore_step(step, frame.fingerprint, &frame.carried, slots)
}

/// The arm of a resumed step, once its layout fingerprint matches and its carried locals are
/// back in `slots`: for a handler's continuation and a helper's frame alike.
fn restore_step(
    step: &StepInfo,
    fingerprint: u64,
    carried: &[u8],
    slots: &mut dyn Slots,
) -> Result<u32, MrtrError> {
    let expected = step_fingerprint(step.layout, slots, step.mask);
    if fingerprint != expected {
        return Err(MrtrError::RejectedState(format!(
            "layout fingerprint {fingerprint:016x} of step `{}` does not match this build ({expected:016x})",
            step.name
        )));
    }
    let mut rest = carried;
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

/// Most steps carry a few ids and short texts: one allocation of this size instead of regrowing
/// from 8 bytes (each regrowth a `realloc`, contended between worker threads in glibc's arenas).
const CARRIED_START: usize = 128;

/// The locals step `info` carries, encoded in its slot order; refused once their base64 form
/// alone is past `cap`, before the remaining locals are encoded.
fn save_carried(slots: &mut dyn Slots, info: &StepInfo, cap: usize) -> Result<Vec<u8>, MrtrError> {
    let mut carried = Vec::with_capacity(CARRIED_START);
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
    match failure {
        Some(error) => Err(error),
        None => Ok(carried),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::BindDigest;
    use crate::carry::{Slot, slot};
    use crate::config::{KeyRing, StateConfig};
    use crate::machine::StepInfo;

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
        s.continuation
    }

    /// `restore`'s counter, or the failure it kept for the step exit.
    fn restored(mut io: Io, slots: &mut Carried) -> Result<u32, MrtrError> {
        let pc = io.restore(slots, 0);
        match io.failed.take() {
            Some(error) => {
                assert_eq!(pc, NO_ARM, "a refused state starts at no arm");
                Err(error)
            }
            None => Ok(pc),
        }
    }

    /// `restore_frame`'s counter, or the failure it kept.
    fn restored_frame(frame: Option<Frame>, slots: &mut Carried) -> Result<u32, MrtrError> {
        let mut io = io(None);
        let pc = io.restore_frame(&HANDLER, false, frame, slots, 0);
        match io.failed.take() {
            Some(error) => Err(error),
            None => Ok(pc),
        }
    }

    fn rejection(resumed: Continuation) -> String {
        let mut slots: Carried = (slot(), slot());
        match restored(io(Some(resumed)), &mut slots) {
            Err(MrtrError::RejectedState(reason)) => reason,
            other => panic!("expected a rejected state, got {other:?}"),
        }
    }

    #[test]
    fn a_first_round_starts_at_the_start_arm() {
        let mut slots: Carried = (slot(), slot());
        assert_eq!(restored(io(None), &mut slots).expect("no state"), 0);
        assert!(slots.0.value.is_none() && slots.1.value.is_none());
    }

    #[test]
    fn a_suspended_step_restores_its_slots_and_resumes_at_its_arm() {
        let mut slots: Carried = (slot(), slot());
        let pc = restored(io(Some(suspended())), &mut slots).expect("restores");
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

    #[test]
    fn a_missing_slot_or_arm_fails_the_round_at_its_step_exit_instead_of_panicking() {
        let mut io = io(None);
        assert_eq!(io.lost("plan"), FAILED);
        // The first failure stays.
        assert_eq!(io.no_arm(), FAILED);
        assert_eq!(io.resume_pc(0), NO_ARM, "a failed round resumes nowhere");
        match io.suspend::<()>(&mut filled(), FAILED) {
            Flow::Fail(MrtrError::Internal(reason)) => {
                assert_eq!(reason, "mrtr lowering bug: slot `plan` is empty")
            }
            _ => panic!("a lost slot must fail the round"),
        }
        let mut io = super::tests::io(None);
        assert_eq!(io.no_arm(), FAILED);
        assert!(matches!(io.failure(), MrtrError::Internal(reason) if reason.contains("no arm")));
    }

    /// A helper's frame, as its caller carries it, for the filled slots.
    fn frame() -> Frame {
        match io(None).suspend_frame::<()>(&HANDLER, &mut filled(), 0) {
            Poll::Suspend(frame) => frame,
            _ => panic!("filled slots suspend"),
        }
    }

    #[test]
    fn a_helper_frame_restores_its_step_and_locals() {
        let mut slots: Carried = (slot(), slot());
        let pc = restored_frame(Some(frame()), &mut slots).expect("the frame opens");
        assert_eq!(pc, 3);
        assert_eq!(slots.0.value, Some(7));
        assert_eq!(slots.1.value.as_deref(), Some("seven"));
    }

    #[test]
    fn a_helper_frame_from_another_layout_is_refused_before_anything_runs() {
        let mut edited = frame();
        edited.fingerprint ^= 1;
        let mut slots: Carried = (slot(), slot());
        let refused = restored_frame(Some(edited), &mut slots);
        assert!(
            matches!(&refused, Err(MrtrError::RejectedState(reason)) if reason.contains("does not match this build")),
            "{refused:?}"
        );
        assert!(slots.0.value.is_none() && slots.1.value.is_none());
        let refused = restored_frame(None, &mut slots);
        assert!(matches!(refused, Err(MrtrError::RejectedState(_))));
        let mut unknown = frame();
        unknown.step = 9;
        let refused = restored_frame(Some(unknown), &mut slots);
        assert!(
            matches!(refused, Err(MrtrError::RejectedState(reason)) if reason.contains("unknown step"))
        );
    }

    #[test]
    fn a_helper_entry_settles_for_its_call_site_and_its_failure_ends_the_step() {
        let mut io = io(None);
        let mut slot = None;
        assert_eq!(io.settled(Poll::Done(3u8), &mut slot), Some(3));
        assert_eq!(io.settled(Poll::<u8>::Suspend(frame()), &mut slot), None);
        assert_eq!(
            slot,
            Some(frame()),
            "a suspended helper leaves its frame to carry"
        );
        assert!(!io.asks_live());
        let failed = MrtrError::Client("the client went away".into());
        assert_eq!(io.settled(Poll::<u8>::Fail(failed), &mut None), None);
        // The step the site leaves at reports the failure instead of sealing.
        match io.suspend::<()>(&mut filled(), 0) {
            Flow::Fail(MrtrError::Client(reason)) => assert_eq!(reason, "the client went away"),
            _ => panic!("a helper's failure must fail the round"),
        }
    }

    #[test]
    fn keys_asked_inside_a_helper_carry_its_call_site_prefix() {
        let mut io = io(None);
        let outer = io.enter("admin");
        let inner = io.enter("gate#2");
        let _ = io.ask(
            "confirm",
            crate::request::elicit_url("go?", "https://example.com"),
        );
        io.leave(inner);
        let _ = io.ask(
            "code",
            crate::request::elicit_url("code?", "https://example.com"),
        );
        io.leave(outer);
        let keys: Vec<&String> = io.pending.keys().collect();
        assert_eq!(keys, ["admin.code", "admin.gate#2.confirm"]);
    }

    /// A valid answer is kept only while the step has another ask that may still be missing:
    /// then a re-ask carries it. The only ask of a step has nothing to wait for.
    #[test]
    fn an_answer_is_kept_for_the_step_only_beside_another_ask() {
        let accepted = || serde_json::json!({ "action": "accept" });
        let url = || crate::request::elicit_url("go?", "https://example.com");

        let mut alone = io(None);
        alone.incoming.insert("a".into(), accepted());
        let a = alone.ask("a", url());
        assert!(matches!(alone.take(&a, "a"), Ok(Answer::Accept(()))));
        assert!(
            alone.answered.is_empty(),
            "the step is complete: settle is next"
        );

        let mut pair = io(None);
        pair.incoming.insert("a".into(), accepted());
        let a = pair.ask("a", url());
        let b = pair.ask("b", url());
        assert!(matches!(pair.take(&a, "a"), Ok(Answer::Accept(()))));
        assert!(pair.take(&b, "b").is_err(), "b is not answered yet");
        let Flow::<()>::Suspend(suspended) = pair.suspend(&mut filled(), 0) else {
            panic!("a missing answer suspends");
        };
        let continuation = suspended.continuation;
        assert_eq!(continuation.answered.get("a"), Some(&accepted()));
        let asked: Vec<&String> = continuation.unanswered().map(|(key, _)| key).collect();
        assert_eq!(asked, ["b"], "only the missing ask is asked again");
    }
}
