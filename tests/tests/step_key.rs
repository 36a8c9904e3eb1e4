//! `StepKey`: the idempotency key a handler hands its backend. Stable for one exact
//! `requestState` (a duplicated retry of the final round presents the same key, so the backend
//! can refuse the second effect), distinct across rounds, absent on a first round.

use std::sync::{Arc, Mutex};

use mrtr::testing::*;
use mrtr::{Answer, StepKey, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use serde_json::json;

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Clone, Default)]
struct Payments {
    /// The keys the "backend" saw, one per charge attempt.
    charges: Arc<Mutex<Vec<Option<String>>>>,
}

impl Payments {
    /// Records the charge under the round's key and answers with the confirmation and the key
    /// the first round saw.
    fn charged(
        &self,
        step: &StepKey,
        first_round_key: Option<String>,
        confirm: Answer<Confirm>,
    ) -> CallToolResult {
        self.charges
            .lock()
            .unwrap()
            .push(step.get().map(|k| k.to_string()));
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        CallToolResult::success(vec![ContentBlock::text(format!(
            "{ok} {first_round_key:?}"
        ))])
    }
}

#[tool_router]
impl Payments {
    #[mrtr_tool]
    #[tool(description = "charge after confirmation")]
    async fn charge(&self, step: StepKey) -> Result<CallToolResult, ErrorData> {
        let first_round_key = step.get().map(|k| k.to_string());
        let confirm = ask!(confirm: elicit::<Confirm>("Charge the card?"));
        Ok(self.charged(&step, first_round_key, confirm))
    }

    /// The same, beside a parameter rmcp extracts from the request context: the call then
    /// leaves its `StepKey` in the extensions for the parameter to find, instead of handing
    /// it over itself.
    #[mrtr_tool]
    #[tool(description = "charge after confirmation, reading the request context too")]
    async fn charge_in_context(
        &self,
        step: StepKey,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let _ = context.id;
        let first_round_key = step.get().map(|k| k.to_string());
        let confirm = ask!(confirm: elicit::<Confirm>("Charge the card?"));
        Ok(self.charged(&step, first_round_key, confirm))
    }
}

#[tokio::test]
async fn a_duplicated_final_retry_presents_the_same_key() {
    for tool in ["charge", "charge_in_context"] {
        let payments = Payments::default();
        let server = TestServer::new(
            payments.clone(),
            Payments::tool_router(),
            test_runtime("pay"),
        );
        let session = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
        let first = expect_input_required(session.round(tool, json!({}), None, None).await);
        let answer = json!({ "confirm": { "action": "accept", "content": { "ok": true } } });
        let once = expect_complete(
            session
                .round(
                    tool,
                    json!({}),
                    Some(answer.clone()),
                    first.request_state.clone(),
                )
                .await,
        );
        let twice = expect_complete(
            session
                .round(tool, json!({}), Some(answer), first.request_state.clone())
                .await,
        );
        assert_eq!(
            text_of(&once),
            "true None",
            "{tool}: no key before the first suspension"
        );
        assert_eq!(text_of(&twice), text_of(&once), "{tool}");
        let charges = payments.charges.lock().unwrap().clone();
        assert_eq!(charges.len(), 2, "{tool}");
        assert!(charges[0].is_some(), "{tool}: the resumed round has a key");
        assert_eq!(
            charges[0], charges[1],
            "{tool}: the same requestState gives the same key"
        );
        session.close().await;
    }
}

#[tokio::test]
async fn legacy_sessions_have_no_key() {
    let payments = Payments::default();
    let server = TestServer::new(
        payments.clone(),
        Payments::tool_router(),
        test_runtime("pay"),
    );
    let client =
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Charge", [accept(json!({ "ok": true }))]);
    let session = connect(server, client, Era::Legacy).await;
    let result = session.call("charge", json!({})).await.expect("completes");
    assert_eq!(text_of(&result), "true None");
    assert_eq!(payments.charges.lock().unwrap().clone(), vec![None]);
    session.close().await;
}
