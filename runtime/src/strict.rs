#![allow(deprecated)] // logging, subscriptions, sampling and roots are deprecated by SEP-2577 but still forwarded
//! [`StrictParams`]: the server wrapper that answers unreadable MRTR params with -32602.

use std::borrow::Cow;
use std::future::Future;

use rmcp::model::*;
use rmcp::service::{
    MaybeSendFuture, NotificationContext, RequestContext, RoleServer, SubscriptionContext,
};
use rmcp::{ErrorData, ServerHandler};

use crate::malformed;

/// Wraps a server so that a `tools/call`, `prompts/get` or `resources/read` whose params do not
/// parse is answered with -32602 naming the field at fault (`inputResponses` must be an object,
/// `requestState` a string, ...), instead of rmcp's -32601 "method not found" (HTTP 404).
///
/// Everything else is the wrapped server's: wrap it where you serve it, on any transport.
///
/// ```ignore
/// Deployer::new(ops).serve(rmcp::transport::stdio()).await?;                 // before
/// mrtr::StrictParams::new(Deployer::new(ops)).serve(rmcp::transport::stdio()).await?; // after
/// ```
///
/// rmcp's own checks that come first (the request's `_meta`, its protocol version) still come
/// first: only the "method not found" a custom request would get is replaced.
#[derive(Clone, Debug, Default)]
pub struct StrictParams<H> {
    inner: H,
}

impl<H> StrictParams<H> {
    pub fn new(inner: H) -> Self {
        Self { inner }
    }

    pub fn inner(&self) -> &H {
        &self.inner
    }

    pub fn into_inner(self) -> H {
        self.inner
    }
}

/// Forwards request and notification methods to the wrapped server unchanged.
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        fn $name(&self, $($arg: $ty),*) -> impl Future<Output = $out> + MaybeSendFuture + '_ {
            self.inner.$name($($arg),*)
        }
    )*};
}

type Rpc<T> = Result<T, ErrorData>;
type Ctx = RequestContext<RoleServer>;
type NCtx = NotificationContext<RoleServer>;

impl<H: ServerHandler> ServerHandler for StrictParams<H> {
    forward! {
        ping(context: Ctx) -> Rpc<()>;
        initialize(request: InitializeRequestParams, context: Ctx) -> Rpc<InitializeResult>;
        discover(context: Ctx) -> Rpc<DiscoverResult>;
        complete(request: CompleteRequestParams, context: Ctx) -> Rpc<CompleteResult>;
        set_level(request: SetLevelRequestParams, context: Ctx) -> Rpc<()>;
        get_prompt(request: GetPromptRequestParams, context: Ctx) -> Rpc<GetPromptResponse>;
        list_prompts(request: Option<PaginatedRequestParams>, context: Ctx) -> Rpc<ListPromptsResult>;
        list_resources(request: Option<PaginatedRequestParams>, context: Ctx) -> Rpc<ListResourcesResult>;
        list_resource_templates(request: Option<PaginatedRequestParams>, context: Ctx) -> Rpc<ListResourceTemplatesResult>;
        read_resource(request: ReadResourceRequestParams, context: Ctx) -> Rpc<ReadResourceResponse>;
        listen(context: SubscriptionContext) -> Rpc<()>;
        subscribe(request: SubscribeRequestParams, context: Ctx) -> Rpc<()>;
        unsubscribe(request: UnsubscribeRequestParams, context: Ctx) -> Rpc<()>;
        call_tool(request: CallToolRequestParams, context: Ctx) -> Rpc<CallToolResponse>;
        list_tools(request: Option<PaginatedRequestParams>, context: Ctx) -> Rpc<ListToolsResult>;
        on_cancelled(notification: CancelledNotificationParam, context: NCtx) -> ();
        on_progress(notification: ProgressNotificationParam, context: NCtx) -> ();
        on_initialized(context: NCtx) -> ();
        on_roots_list_changed(context: NCtx) -> ();
        on_custom_notification(notification: CustomNotification, context: NCtx) -> ();
        get_task(request: GetTaskParams, context: Ctx) -> Rpc<GetTaskResult>;
        update_task(request: UpdateTaskParams, context: Ctx) -> Rpc<()>;
        cancel_task(request: CancelTaskParams, context: Ctx) -> Rpc<()>;
        list_skills(request: Option<PaginatedRequestParams>, context: Ctx) -> Rpc<ListSkillsResult>;
        get_skill(request: GetSkillRequestParams, context: Ctx) -> Rpc<GetSkillResult>;
        read_resource_directory(request: ReadResourceDirectoryRequestParams, context: Ctx) -> Rpc<ReadResourceDirectoryResult>;
    }

    fn negotiate_initialize(&self, request: &InitializeRequestParams) -> Rpc<InitializeResult> {
        self.inner.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn on_custom_request(&self, request: CustomRequest, context: Ctx) -> Rpc<CustomResult> {
        if let Some(error) = malformed::invalid_params(&request.method, request.params.as_ref()) {
            tracing::debug!(target: "mrtr", method = %request.method, message = %error.message, "params do not parse");
            return Err(error);
        }
        self.inner.on_custom_request(request, context).await
    }
}
