//! Responding: the body's outcome becomes the response rmcp expects for the request kind. The
//! user's value is converted by rmcp's own traits (or, for resources, ours), a runtime failure
//! becomes its JSON-RPC error, and a suspension is sealed into `input_required`.
//!
//! One pair of functions serves every request kind: [`respond`] for rmcp's `Send` futures and
//! [`respond_local`] for `#[tool(local)]` / `#[prompt(local)]`. They cannot be one function: the
//! body arrives as `Pin<Box<dyn Future + Send>>` or `Pin<Box<dyn Future>>` and the response must
//! be boxed the same way, and Rust cannot be generic over whether a `dyn` type carries `+ Send`
//! (an auto trait is not a type parameter); a trait over the two box types would be more code
//! than the second short function.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::{BoxFuture, LocalBoxFuture};
use rmcp::ErrorData;
use rmcp::handler::server::prompt::IntoGetPromptResult;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{
    CallToolResponse, GetPromptResponse, InputRequiredResult, ReadResourceResponse,
    ReadResourceResult,
};

use crate::error::MrtrError;

use super::lift::{Flow, Lift, Lifted};
use super::round::Io;
use super::stepped::Steps;

/// The round being opened (`ToolCall::open` and its kin): the incoming state checked, an [`Io`]
/// built. Ready at once, unless a replay guard claims the continuation first: only that path
/// awaits, so only that path allocates a future.
pub enum Opening {
    Ready(Option<Result<Io, MrtrError>>),
    Claiming(BoxFuture<'static, Result<Io, MrtrError>>),
}

impl Opening {
    pub(crate) fn ready(opened: Result<Io, MrtrError>) -> Self {
        Opening::Ready(Some(opened))
    }

    /// Whether this round may take a lease: only a claim does (`crate::lease`).
    fn claims(&self) -> bool {
        matches!(self, Opening::Claiming(_))
    }
}

impl Future for Opening {
    type Output = Result<Io, MrtrError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Opening::Ready(opened) => Poll::Ready(opened.take().unwrap_or_else(|| {
                Err(MrtrError::Internal(
                    "a round's opening was awaited twice".into(),
                ))
            })),
            Opening::Claiming(claiming) => claiming.as_mut().poll(cx),
        }
    }
}

/// `round` in a scope for the lease its opening may take. A round whose opening claims nothing
/// holds no lease, and runs without the task-local scope, which every poll of the round would
/// otherwise swap in and out.
fn leased<'a, T, F>(claims: bool, round: F) -> BoxFuture<'a, T>
where
    F: Future<Output = T> + Send + 'a,
{
    if claims {
        Box::pin(crate::lease::scope(round))
    } else {
        Box::pin(round)
    }
}

/// The future rmcp awaits for a `tools/call`, `prompts/get` or `resources/read`: the round is
/// opened, the boxed body runs on its `Io`, then its outcome becomes that request's response.
///
/// Opening the round here rather than in the body leaves each handler's body one `.await` and one
/// early return fewer to compile; `body` is boxed, so this is compiled once per return type, not
/// once per handler.
pub fn respond<'a, R, Out>(
    open: Opening,
    body: Box<dyn FnOnce(Io) -> BoxFuture<'a, Lifted<R>> + Send + 'a>,
) -> BoxFuture<'a, Result<Out, ErrorData>>
where
    R: Lift + IntoResponse<Out> + 'a,
    Out: From<InputRequiredResult> + 'a,
{
    leased(open.claims(), async move {
        answered(outcome::<R, Out>(opened::<R, _>(open, body).await))
    })
}

/// [`respond`] for a body lowered into a step function (`stepped.rs`): its waits are awaited
/// here, between calls, so the handler itself is no coroutine.
pub fn respond_steps<'a, R, Out>(
    open: Opening,
    body: Steps<'a, R>,
) -> BoxFuture<'a, Result<Out, ErrorData>>
where
    R: Lift + IntoResponse<Out> + 'a,
    Out: From<InputRequiredResult> + 'a,
{
    leased(open.claims(), async move {
        let out = match open.await {
            Ok(io) => super::stepped::drive::<R>(io, body).await,
            Err(error) => Ok(Flow::Fail(error)),
        };
        answered(outcome::<R, Out>(out))
    })
}

/// [`respond`] for `#[tool(local)]` / `#[prompt(local)]` handlers, whose futures need not be
/// `Send`.
pub fn respond_local<'a, R, Out>(
    open: Opening,
    body: Box<dyn FnOnce(Io) -> LocalBoxFuture<'a, Lifted<R>> + 'a>,
) -> LocalBoxFuture<'a, Result<Out, ErrorData>>
where
    R: Lift + IntoResponse<Out> + 'a,
    Out: From<InputRequiredResult> + 'a,
{
    Box::pin(crate::lease::scope(async move {
        answered(outcome::<R, Out>(opened::<R, _>(open, body).await))
    }))
}

/// The body's outcome on the opened round; a round that cannot be opened fails before any of the
/// body runs.
async fn opened<R: Lift, B: Future<Output = Lifted<R>>>(
    open: Opening,
    body: impl FnOnce(Io) -> B,
) -> Lifted<R> {
    match open.await {
        Ok(io) => body(io).await,
        Err(error) => Ok(Flow::Fail(error)),
    }
}

/// The round has its response: under single use its continuation is spent, whatever the
/// response (a lease the round gave back before its body ran is gone already).
fn answered<Out>(response: Result<Out, ErrorData>) -> Result<Out, ErrorData> {
    crate::lease::spend_held();
    response
}

/// What every request kind does with the body's outcome: hand back the user's value, report a
/// runtime failure, or seal the suspension.
pub(super) fn outcome<R: Lift + IntoResponse<Out>, Out: From<InputRequiredResult>>(
    out: Lifted<R>,
) -> Result<Out, ErrorData> {
    if matches!(out, Ok(Flow::Done(_)) | Err(_)) {
        crate::observe::completed(<R as IntoResponse<Out>>::KIND);
    }
    match out {
        Ok(Flow::Done(value)) => R::join(Ok(value)).into_response(),
        Err(error) => R::join(Err(error)).into_response(),
        Ok(Flow::Fail(error)) => Err(error.into()),
        Ok(Flow::Suspend(suspension)) => Ok(Out::from(suspension.seal()?)),
        Ok(Flow::Paused) => Err(MrtrError::Internal(
            "mrtr lowering bug: a body paused outside its driver".into(),
        )
        .into()),
    }
}

/// A handler's return type that completes a request whose response is `Out`: rmcp's
/// `IntoCallToolResult` and `IntoGetPromptResult`, and [`IntoReadResourceResponse`]. (Every
/// response type says `input_required` through rmcp's `From<InputRequiredResult>`.)
pub trait IntoResponse<Out> {
    /// The request kind, for the completion counter: `tool`, `prompt` or `resource`.
    const KIND: &'static str;
    fn into_response(self) -> Result<Out, ErrorData>;
}

impl<R: IntoCallToolResult> IntoResponse<CallToolResponse> for R {
    const KIND: &'static str = "tool";
    fn into_response(self) -> Result<CallToolResponse, ErrorData> {
        self.into_call_tool_result()
    }
}

/// A `prompts/get` outcome in the shape rmcp's prompt router accepts.
pub struct PromptOutcome(pub GetPromptResponse);

impl IntoGetPromptResult for PromptOutcome {
    fn into_get_prompt_result(self) -> Result<GetPromptResponse, ErrorData> {
        Ok(self.0)
    }
}

impl From<InputRequiredResult> for PromptOutcome {
    fn from(result: InputRequiredResult) -> Self {
        PromptOutcome(result.into())
    }
}

impl<R: IntoGetPromptResult> IntoResponse<PromptOutcome> for R {
    const KIND: &'static str = "prompt";
    fn into_response(self) -> Result<PromptOutcome, ErrorData> {
        self.into_get_prompt_result().map(PromptOutcome)
    }
}

impl<R: IntoReadResourceResponse> IntoResponse<ReadResourceResponse> for R {
    const KIND: &'static str = "resource";
    fn into_response(self) -> Result<ReadResourceResponse, ErrorData> {
        self.into_read_resource_response()
    }
}

/// What a `#[mrtr_tool(resource)]` handler may return (rmcp has no such trait: resources have no
/// router).
pub trait IntoReadResourceResponse {
    fn into_read_resource_response(self) -> Result<ReadResourceResponse, ErrorData>;
}

impl IntoReadResourceResponse for ReadResourceResult {
    fn into_read_resource_response(self) -> Result<ReadResourceResponse, ErrorData> {
        Ok(ReadResourceResponse::Complete(self))
    }
}

impl IntoReadResourceResponse for ErrorData {
    fn into_read_resource_response(self) -> Result<ReadResourceResponse, ErrorData> {
        Err(self)
    }
}

impl<T: IntoReadResourceResponse, E: IntoReadResourceResponse> IntoReadResourceResponse
    for Result<T, E>
{
    fn into_read_resource_response(self) -> Result<ReadResourceResponse, ErrorData> {
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
