//! Where rmcp hands a request to a lowered handler: the injected extractors (the call itself,
//! [`Principal`], [`StepKey`]), era selection and opening the incoming state. The legacy server-initiated requests are in `live`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::handler::server::common::{AsRequestContext, FromContextPart};
use rmcp::handler::server::prompt::PromptContext;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::JsonObject;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::bind::{BindDigest, bind_digest};
use crate::capability::ClientCaps;
use crate::era::Era;
use crate::error::MrtrError;
use crate::lease::{Delivery, Lease};
use crate::limits::RawBounds;
use crate::machine::{Handler, Io, Opening};
use crate::replay::{Claim, ReplayGuard};
use crate::runtime::Runtime;
use crate::seal::{Binding, IdempotencyKey};

/// The authenticated subject of a request, bound into every continuation it mints.
///
/// Insert it into the HTTP request's extensions from your auth middleware (rmcp passes the
/// request's `http::request::Parts` on to handlers), or into the rmcp request extensions
/// directly. Use a stable identity such as the token's `sub`, never the bearer token itself: a
/// refreshed token must not break a dialogue in progress.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// The idempotency key of the continuation a round resumes, for handlers to hand to their
/// backend: a duplicated retry presents the same `requestState` and so the same key.
///
/// Take it as a handler parameter. It is filled in once the incoming state has passed every
/// check, before the body runs; it is `None` on a first round and on legacy sessions, where
/// nothing is replayed.
#[derive(Clone, Debug, Default)]
// A lock rather than a `OnceLock`: the key is set once per round, and a `OnceLock` made per
// round runs `Once`'s initialisation code every round; an uncontended lock is a few
// instructions.
pub struct StepKey(Arc<Mutex<Option<IdempotencyKey>>>);

impl StepKey {
    pub fn get(&self) -> Option<IdempotencyKey> {
        *crate::unpoisoned::lock(&self.0)
    }

    /// The first key set is kept.
    pub(crate) fn set(&self, key: IdempotencyKey) {
        crate::unpoisoned::lock(&self.0).get_or_insert(key);
    }
}

impl<C: AsRequestContext> FromContextPart<C> for StepKey {
    fn from_context_part(context: &mut C) -> Result<Self, ErrorData> {
        Ok(context
            .as_request_context()
            .extensions
            .get::<StepKey>()
            .cloned()
            .unwrap_or_default())
    }
}

/// One round's MRTR parameters, for request kinds whose rmcp context does not carry them.
///
/// rmcp's prompt router drops `inputResponses` and `requestState`; a server's `get_prompt`
/// stores them here (see [`RoundInput::stash`]) before it calls the router.
#[derive(Clone, Debug, Default)]
pub struct RoundInput {
    pub input_responses: Option<BTreeMap<String, Value>>,
    pub request_state: Option<String>,
}

impl RoundInput {
    /// Moves the round's parameters out of `params` into the request extensions.
    pub fn stash(
        params: &mut rmcp::model::GetPromptRequestParams,
        context: &mut RequestContext<RoleServer>,
    ) {
        context.extensions.insert(RoundInput {
            input_responses: params.input_responses.take(),
            request_state: params.request_state.take(),
        });
    }
}

/// Everything a lowered handler needs from one request. Injected by `#[mrtr_tool]`.
pub struct ToolCall {
    request: Request,
}

/// [`ToolCall`] and [`CallContext`] in one parameter, for a handler whose own parameters are all
/// `Parameters<T>`, `ClientCaps` or `StepKey`: the first read only the arguments and the call
/// hands over the others itself ([`Self::caps`], [`Self::step_key`]), so nothing after the call
/// needs rmcp's request context and it is taken whole at once. Fewer extractors are a smaller
/// `CallToolHandler` instance per handler, and nothing is left in the request's extensions for a
/// parameter to look up: two inserts and their lookups less per round.
///
/// `KEEPS_CONTEXT` is `false` (the attribute's choice) for a handler that enters no helper and
/// decodes no parameter again: its round needs nothing of rmcp's context or of the arguments
/// once the call has opened. A 2026-07-28 call is then checked right here, reading the context
/// and the arguments where they are (the bind digest hashed from rmcp's own map), and neither
/// is taken or copied: no context is left in rmcp's place, no arguments map is cloned. A legacy
/// call still takes the context, whose peer its asks are sent to.
pub struct ToolCallInContext<const KEEPS_CONTEXT: bool = true> {
    caps: ClientCaps,
    step_key: StepKey,
    /// The call checked as it was extracted; its errors wait for [`Self::open`] to report them,
    /// so that a parameter rmcp cannot extract after this one is still reported first.
    checked: Result<Checked, MrtrError>,
    context: Option<RequestContext<RoleServer>>,
}

/// The prompt counterpart of [`ToolCall`].
pub struct PromptCall {
    request: Request,
}

/// The `resources/read` counterpart of [`ToolCall`]. rmcp has no resource router, so a server's
/// `read_resource` builds it and passes it as the first argument of a `#[mrtr_tool(resource)]`
/// method.
pub struct ResourceCall {
    request: Request,
    context: RequestContext<RoleServer>,
}

/// The request's rmcp context, taken whole by the last parameter `#[mrtr_tool]` adds to a
/// tool or prompt: rmcp extracts parameters in order, so by then every parameter of the user's
/// has read what it needs, and the round owns the context without copying its `_meta` and HTTP
/// parts.
pub struct CallContext(RequestContext<RoleServer>);

impl CallContext {
    /// What is left in the context's place is never read: rmcp drops it with the call once the
    /// parameters are extracted, and no parameter is extracted after this one. So it is the
    /// cheapest context there is (a fresh token, not a clone of the request's, whose clone and
    /// drop would each lock its tree).
    fn take(context: &mut RequestContext<RoleServer>) -> Self {
        let rest = RequestContext::new(context.id.clone(), context.peer.clone());
        CallContext(std::mem::replace(context, rest))
    }
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for CallContext {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(CallContext::take(&mut context.request_context))
    }
}

impl<S> FromContextPart<PromptContext<'_, S>> for CallContext {
    fn from_context_part(context: &mut PromptContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(CallContext::take(&mut context.context))
    }
}

impl ResourceCall {
    /// Moves the round's `inputResponses` and `requestState` out of `params`.
    pub fn new(
        params: &mut rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Self {
        let mut context = context;
        ResourceCall {
            request: Request::new(
                "resources/read",
                params.uri.clone(),
                None,
                params.input_responses.take(),
                params.request_state.take(),
                &mut context,
            ),
            context,
        }
    }

    #[doc(hidden)]
    pub fn open(self, handler: &'static Handler) -> Opening {
        self.request.open(handler, self.context)
    }
}

struct Request {
    /// Shared with the handler's `StepKey` parameter; filled in once the state is open.
    step_key: StepKey,
    /// The capabilities the request declares, read once for the round and the handler.
    caps: ClientCaps,
    method: &'static str,
    target: String,
    arguments: Option<JsonObject>,
    input_responses: Option<BTreeMap<String, Value>>,
    request_state: Option<String>,
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for ToolCall {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(ToolCall {
            request: Request::new(
                "tools/call",
                context.name.to_string(),
                // Cloned, not taken: the user's `Parameters<T>` still needs them.
                context.arguments.clone(),
                context.input_responses.take(),
                context.request_state.take(),
                &mut context.request_context,
            ),
        })
    }
}

impl<S, const KEEPS_CONTEXT: bool> FromContextPart<ToolCallContext<'_, S>>
    for ToolCallInContext<KEEPS_CONTEXT>
{
    fn from_context_part(call: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        // No `StepKey` or `ClientCaps` parameter reads them from the extensions: the generated
        // method takes both from this call ([`Self::caps`], [`Self::step_key`]).
        let caps = ClientCaps::of_context(&call.request_context);
        let era = Era::of(&call.request_context);
        let legacy = matches!(era, Era::Legacy(_));
        let (target, arguments, bind) = if KEEPS_CONTEXT {
            (call.name.to_string(), call.arguments.clone(), None)
        } else {
            let bind =
                (!legacy).then(|| bind_digest("tools/call", &call.name, call.arguments.as_ref()));
            (String::new(), None, bind)
        };
        let request = Request::unshared(
            "tools/call",
            target,
            arguments,
            call.input_responses.take(),
            call.request_state.take(),
            caps.clone(),
        );
        let step_key = request.step_key.clone();
        let context =
            (KEEPS_CONTEXT || legacy).then(|| CallContext::take(&mut call.request_context).0);
        let checked = request.check(context.as_ref().unwrap_or(&call.request_context), era, bind);
        Ok(ToolCallInContext {
            caps,
            step_key,
            checked,
            context,
        })
    }
}

impl<S> FromContextPart<PromptContext<'_, S>> for PromptCall {
    fn from_context_part(context: &mut PromptContext<'_, S>) -> Result<Self, ErrorData> {
        let round = context
            .context
            .extensions
            .remove::<RoundInput>()
            .unwrap_or_default();
        Ok(PromptCall {
            request: Request::new(
                "prompts/get",
                context.name.clone(),
                context.arguments.clone(),
                round.input_responses,
                round.request_state,
                &mut context.context,
            ),
        })
    }
}

impl ToolCall {
    /// Opens the round: era, capabilities and the incoming continuation, checked (and claimed,
    /// under a replay guard, the only step that awaits: its future is boxed and compiled once,
    /// here).
    pub fn open(self, handler: &'static Handler, context: CallContext) -> Opening {
        self.request.open(handler, context.0)
    }
}

impl<const KEEPS_CONTEXT: bool> ToolCallInContext<KEEPS_CONTEXT> {
    /// [`ToolCall::open`] with what this call checked and took.
    pub fn open(self, handler: &'static Handler) -> Opening {
        match self.checked {
            Ok(checked) => checked.open(handler, self.context),
            Err(error) => Opening::ready(Err(error)),
        }
    }

    /// The handler's `ClientCaps` parameter, from the call rather than rmcp's extensions.
    #[doc(hidden)]
    pub fn caps(&self) -> ClientCaps {
        self.caps.clone()
    }

    /// The handler's `StepKey` parameter, filled in when the call opens.
    #[doc(hidden)]
    pub fn step_key(&self) -> StepKey {
        self.step_key.clone()
    }
}

impl PromptCall {
    #[doc(hidden)]
    pub fn open(self, handler: &'static Handler, context: CallContext) -> Opening {
        self.request.open(handler, context.0)
    }
}

impl Request {
    fn new(
        method: &'static str,
        target: String,
        arguments: Option<JsonObject>,
        input_responses: Option<BTreeMap<String, Value>>,
        request_state: Option<String>,
        context: &mut RequestContext<RoleServer>,
    ) -> Self {
        // The capabilities are read once here for the round and a `ClientCaps` parameter, and
        // kept in the extensions with the `StepKey` cell: the call is extracted before the
        // user's parameters, so theirs find both there; `open` fills the cell once the state is
        // open.
        let caps = ClientCaps::of_request(context);
        let request = Self::unshared(
            method,
            target,
            arguments,
            input_responses,
            request_state,
            caps,
        );
        context.extensions.insert(request.step_key.clone());
        request
    }

    /// [`Request::new`] for a call that hands its `StepKey` and `ClientCaps` to the handler
    /// itself: nothing is left in the extensions for a parameter to find.
    fn unshared(
        method: &'static str,
        target: String,
        arguments: Option<JsonObject>,
        input_responses: Option<BTreeMap<String, Value>>,
        request_state: Option<String>,
        caps: ClientCaps,
    ) -> Self {
        Request {
            step_key: StepKey::default(),
            caps,
            method,
            target,
            arguments,
            input_responses,
            request_state,
        }
    }

    /// Opens the round at once, unless a replay guard must first claim the continuation: only
    /// that claim awaits, so only that path is a boxed future.
    fn open(self, handler: &'static Handler, context: RequestContext<RoleServer>) -> Opening {
        let era = Era::of(&context);
        match self.check(&context, era, None) {
            Ok(checked) => checked.open(handler, Some(context)),
            Err(error) => Opening::ready(Err(error)),
        }
    }

    /// Every check of the request that needs no handler, failing with the first it does not
    /// pass. `bind` is the bind digest when the caller hashed it already (from arguments it
    /// did not copy into this request).
    fn check(
        self,
        context: &RequestContext<RoleServer>,
        era: Era,
        bind: Option<BindDigest>,
    ) -> Result<Checked, MrtrError> {
        let caps = self.caps;
        let runtime = Runtime::for_request(&context.extensions)?;
        if let Era::Legacy(version) = era {
            return Ok(Checked::Legacy {
                version,
                caps,
                runtime,
                arguments: self.arguments,
            });
        }
        // The HTTP request's parts (rmcp hands them to handlers), looked up once for all that
        // HTTP layers leave in them.
        let parts = context.extensions.get::<http::request::Parts>();
        let incoming = self.input_responses.unwrap_or_default();
        runtime.limits.check_within(&incoming, raw_bounds(parts))?;
        let binding = Binding {
            bind: bind
                .unwrap_or_else(|| bind_digest(self.method, &self.target, self.arguments.as_ref())),
            principal: principal_of(context, parts),
        };
        let opened = match &self.request_state {
            None => None,
            Some(token) => Some(runtime.sealer.open(token, &binding)?),
        };
        // Under single use, where the response leaves, when `mrtr::delivery::DeliveryLayer`
        // put it there: the claim's lease is settled once it has.
        let claim = match (&opened, &runtime.replay) {
            (Some(_), Some(guard)) => Some((
                guard.clone(),
                parts.and_then(|parts| parts.extensions.get::<Delivery>().cloned()),
            )),
            _ => None,
        };
        Ok(Checked::Modern {
            runtime,
            round: ModernRound {
                binding,
                caps,
                incoming,
                step_key: self.step_key,
                arguments: self.arguments,
            },
            opened,
            claim,
        })
    }
}

/// A request that passed every check of [`Request::check`], waiting for its handler.
// The 2026-07-28 variant is the large one and the common one: boxing it would add an
// allocation to every round to shrink the rare legacy one.
#[allow(clippy::large_enum_variant)]
enum Checked {
    /// A legacy session's call: its asks are awaited in place.
    Legacy {
        version: rmcp::model::ProtocolVersion,
        caps: ClientCaps,
        runtime: Arc<Runtime>,
        arguments: Option<JsonObject>,
    },
    /// A 2026-07-28 round, with its continuation opened (if it presented one) and, under
    /// single use, the replay guard that must claim it first.
    Modern {
        runtime: Arc<Runtime>,
        round: ModernRound,
        opened: Option<crate::seal::Opened>,
        claim: Option<(Arc<dyn ReplayGuard>, Option<Delivery>)>,
    },
}

impl Checked {
    /// The round of `handler`; `context` is rmcp's, where the round keeps it (a legacy call
    /// always does: its asks go to the peer).
    fn open(
        self,
        handler: &'static Handler,
        context: Option<RequestContext<RoleServer>>,
    ) -> Opening {
        match self {
            Checked::Legacy {
                version,
                caps,
                runtime,
                arguments,
            } => {
                let Some(context) = context else {
                    return Opening::ready(Err(MrtrError::Internal(
                        "a legacy call was opened without rmcp's request context".into(),
                    )));
                };
                tracing::debug!(target: "mrtr", handler = handler.path, %version, "legacy session: asks are awaited in place");
                crate::observe::round_opened(
                    handler.path,
                    "legacy",
                    None,
                    &crate::observe::NO_KEYS,
                );
                Opening::ready(Ok(Io::live(
                    handler,
                    context.peer.clone(),
                    version,
                    caps,
                    runtime.live_attempts,
                )
                .with_arguments(arguments)
                .with_cancellation(context.ct.clone())
                .with_context(context)))
            }
            Checked::Modern {
                runtime,
                round,
                opened: Some(opened),
                claim: Some((guard, delivery)),
            } => Opening::Claiming(Box::pin(async move {
                claim(&guard, opened.idempotency_key, opened.expires_at, delivery).await?;
                Ok(round.start(handler, runtime, Some(opened), context))
            })),
            Checked::Modern {
                runtime,
                round,
                opened,
                ..
            } => Opening::ready(Ok(round.start(handler, runtime, opened, context))),
        }
    }
}

/// A 2026-07-28 round whose request checked out, waiting only for its continuation (if any)
/// to be claimed.
struct ModernRound {
    binding: Binding,
    caps: ClientCaps,
    incoming: BTreeMap<String, Value>,
    step_key: StepKey,
    arguments: Option<JsonObject>,
}

impl ModernRound {
    fn start(
        self,
        handler: &'static Handler,
        runtime: Arc<Runtime>,
        opened: Option<crate::seal::Opened>,
        context: Option<RequestContext<RoleServer>>,
    ) -> Io {
        let resumed = opened.map(|opened| {
            self.step_key.set(opened.idempotency_key);
            opened.continuation
        });
        let resumed_from = resumed.as_ref().map(|c| c.step.as_str());
        let answered = crate::observe::Keys(&self.incoming);
        crate::observe::round_opened(handler.path, "2026-07-28", resumed_from, &answered);
        let io = Io::modern(
            handler,
            runtime,
            self.binding,
            self.caps,
            resumed,
            self.incoming,
        )
        .with_arguments(self.arguments);
        match context {
            Some(context) => io.with_context(context),
            None => io,
        }
    }
}

/// Takes the continuation for this round under single use; the lease is settled when the round
/// ends (`crate::lease`).
async fn claim(
    guard: &Arc<dyn ReplayGuard>,
    key: IdempotencyKey,
    expires_at: u64,
    delivery: Option<Delivery>,
) -> Result<(), MrtrError> {
    let claim = guard
        .claim(key, expires_at)
        .await
        .map_err(|e| MrtrError::ReplayStoreUnavailable(e.0))?;
    match claim {
        Claim::Taken => {
            Lease::new(guard.clone(), key, expires_at).hold(delivery);
            Ok(())
        }
        Claim::InFlight => Err(MrtrError::StateInFlight(format!(
            "continuation {key} is leased by another round"
        ))),
        Claim::Spent => Err(MrtrError::RejectedState(
            "continuation already redeemed".into(),
        )),
    }
}

/// What the pre-scan counted in the HTTP body this request came in (`PrescanLayer`), if it
/// read it: enough, within the limits, to skip walking the decoded `inputResponses`.
fn raw_bounds(parts: Option<&http::request::Parts>) -> Option<RawBounds> {
    #[cfg(feature = "http")]
    {
        parts?
            .extensions
            .get::<crate::prescan::ScannedBody>()?
            .bounds()
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = parts;
        None
    }
}

/// The authenticated subject: put in rmcp's extensions, or in the HTTP request's by an auth
/// layer.
fn principal_of(
    context: &RequestContext<RoleServer>,
    parts: Option<&http::request::Parts>,
) -> Option<String> {
    let Principal(subject) = context
        .extensions
        .get::<Principal>()
        .or_else(|| parts?.extensions.get::<Principal>())?;
    Some(subject.clone())
}

/// `prompts/get` for servers whose prompts use `#[mrtr_tool]`.
///
/// rmcp's prompt router passes only the prompt's name and arguments to handlers, dropping the
/// round's `inputResponses` and `requestState`; this keeps them for the handler. Call it from
/// your own `ServerHandler::get_prompt`, and leave `#[prompt_handler]` out: it replaces a
/// hand-written `get_prompt` (rmcp-macros 3.11), so write `list_prompts` by hand too
/// (`examples/conformance/main.rs` shows both):
///
/// ```ignore
/// async fn get_prompt(&self, request: GetPromptRequestParams, context: RequestContext<RoleServer>)
///     -> Result<GetPromptResponse, ErrorData> {
///     mrtr::get_prompt(&Self::prompt_router(), self, request, context).await
/// }
/// ```
pub async fn get_prompt<S: Send + Sync + 'static>(
    router: &rmcp::handler::server::router::prompt::PromptRouter<S>,
    server: &S,
    mut request: rmcp::model::GetPromptRequestParams,
    mut context: RequestContext<RoleServer>,
) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
    RoundInput::stash(&mut request, &mut context);
    router
        .get_prompt(PromptContext::new(
            server,
            request.name,
            request.arguments,
            context,
        ))
        .await
}

/// `tools/call` of one lowered tool from a hand-written `ServerHandler::call_tool`: the same
/// extraction, binding, sealing and capability gate as `#[tool_router]`'s dispatch.
///
/// One line per tool; a boxed future of one shape, so a registry built at run time can hold
/// them as plain function pointers:
///
/// ```ignore
/// async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>)
///     -> Result<CallToolResponse, ErrorData> {
///     match request.name.as_ref() {
///         "lab" => mrtr::call(self, Self::lab, request, context).await,
///         "purge" => mrtr::call(self, Self::purge, request, context).await,
///         other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
///     }
/// }
/// ```
pub fn call<'s, S, A, H>(
    server: &'s S,
    handler: H,
    request: rmcp::model::CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> BoxFuture<'s, Result<rmcp::model::CallToolResponse, ErrorData>>
where
    S: Send + Sync + 'static,
    H: rmcp::handler::server::tool::CallToolHandler<S, A>,
{
    handler.call(ToolCallContext::new(server, request, context))
}

/// A lowered tool as a run-time registry holds it: `|s, r, c| mrtr::call(s, Server::lab, r, c)`
/// coerces to it (a dispatcher whose `list_tools` comes from that registry).
pub type ToolFn<S> = for<'s> fn(
    &'s S,
    rmcp::model::CallToolRequestParams,
    RequestContext<RoleServer>,
) -> BoxFuture<'s, Result<rmcp::model::CallToolResponse, ErrorData>>;
