//! What `notifications/cancelled` means for a handler waiting on an `ask!`.
//!
//! On a legacy session the ask is a real server-initiated request: cancelling the tool call must
//! abandon it (the client is told with a `notifications/cancelled` of the server's own) and no
//! code after the `ask!` may run. On 2026-07-28 nothing is pending between rounds: an
//! `input_required` result ends the request, so a client that gives up simply does not retry.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{
    CallToolRequest, CallToolResult, CancelledNotificationParam, ClientConfig, ClientRequest,
    ContentBlock, ElicitRequestParams, ElicitResult, Implementation, RequestId,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, ServiceExt, tool, tool_router};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

struct Deployer {
    effects: Effects,
}

#[tool_router]
impl Deployer {
    #[mrtr_tool]
    #[tool(description = "asks before deploying")]
    async fn deploy(&self) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let answer = ask!(confirm: elicit::<Confirm>("Deploy?"));
        self.effects.record("after the ask");
        let text = match answer {
            Answer::Accept(Confirm { ok: true }) => "deployed",
            _ => "not deployed",
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

/// A legacy client whose user never answers: it reports the elicitation it was sent and the
/// cancellations it receives.
#[derive(Clone, Default)]
struct SilentUser {
    asked: Arc<Notify>,
    elicitation_id: Arc<Mutex<Option<RequestId>>>,
    cancelled: Arc<Mutex<Vec<RequestId>>>,
    told: Arc<Notify>,
}

impl ClientHandler for SilentUser {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            Caps::FORM_ONLY.to_rmcp(),
            Implementation::new("silent", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        *self
            .elicitation_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(context.id.clone());
        self.asked.notify_one();
        std::future::pending().await
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(id) = params.request_id {
            self.cancelled
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(id);
            self.told.notify_one();
        }
    }
}

#[tokio::test]
async fn a_cancelled_legacy_call_abandons_its_pending_ask_and_runs_nothing_after_it() {
    let effects = Effects::default();
    let server = TestServer::new(
        Deployer {
            effects: effects.clone(),
        },
        Deployer::tool_router(),
        test_runtime("cancellation"),
    );
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let user = SilentUser::default();
    let client = user
        .clone()
        .serve(client_end)
        .await
        .expect("a legacy client connects with initialize");

    let call = ClientRequest::CallToolRequest(CallToolRequest::new(params(
        "deploy",
        serde_json::json!({}),
    )));
    let handle = client
        .peer()
        .send_cancellable_request(call, PeerRequestOptions::no_options())
        .await
        .expect("the call is sent");
    tokio::time::timeout(Duration::from_secs(5), user.asked.notified())
        .await
        .expect("the server sends its elicitation");
    handle
        .cancel(Some("the user closed the tab".into()))
        .await
        .expect("the cancellation is sent");

    tokio::time::timeout(Duration::from_secs(5), user.told.notified())
        .await
        .expect("the server abandons its elicitation with notifications/cancelled");
    let elicitation = user
        .elicitation_id
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    assert_eq!(
        user.cancelled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone(),
        [elicitation.expect("an elicitation id")],
        "the cancellation names the pending server-initiated request"
    );
    // Give a handler that wrongly went on the time to record it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(effects.all(), ["plan"], "no code after the ask ran");

    let _ = client.cancel().await;
    let _ = served.await;
}
