//! Asks inside helper functions: `#[mrtr_helper]` machines entered from handlers with
//! `ask!(site: helper(..).await)`, on both eras. Each case checks the result, the rounds, the
//! wire keys (namespaced by call site) and that every effect ran exactly once.

// rmcp marks sampling deprecated (SEP-2577); servers still use it.
#![allow(deprecated)]

use std::sync::Arc;

use mrtr::testing::text as text_reply;
use mrtr::testing::*;
use mrtr::{Answer, ClientCaps, ask, mrtr_helper, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Code {
    code: String,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
struct Target {
    name: String,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
struct Batch {
    names: Vec<String>,
}

struct Ops {
    effects: Effects,
    policy: Policy,
    /// A pluggable gate: the trait decides whether to confirm, one helper asks.
    confirmer: Arc<dyn Confirmer>,
}

/// The trait-object gate of a legacy server, kept for the decision only.
trait Confirmer: Send + Sync {
    fn needs_confirmation(&self, action: &str) -> bool;
}

/// Asks a person (through the shared gate helper).
struct FormConfirmer;

impl Confirmer for FormConfirmer {
    fn needs_confirmation(&self, _action: &str) -> bool {
        true
    }
}

/// For automation: never asks.
struct NoConfirmation;

impl Confirmer for NoConfirmation {
    fn needs_confirmation(&self, _action: &str) -> bool {
        false
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

/// The legacy gate every destructive tool starts with: `None` to go on, `Some(result)` to stop.
#[mrtr_helper]
async fn require_confirmation(caps: &ClientCaps, message: &str) -> Option<CallToolResult> {
    if !caps.elicitation_form() {
        return Some(text("cannot confirm: the client has no form elicitation"));
    }
    let answer = ask!(confirm: elicit::<Confirmation>(format!("{message}: confirm?")));
    match answer {
        Answer::Accept(Confirmation { confirmed: true }) => None,
        _ => Some(text(format!("not confirmed: {message}"))),
    }
}

impl Ops {
    /// Depth 2: an admin check that first passes the shared gate, then asks a code.
    #[mrtr_helper]
    async fn require_admin(&self, caps: &ClientCaps, user: String) -> Option<CallToolResult> {
        self.effects.record(format!("admin check {user}"));
        let stop = ask!(gate: require_confirmation(caps, &format!("act as admin {user}")).await);
        if let Some(stop) = stop {
            return Some(stop);
        }
        let code = ask!(code: elicit::<Code>("admin code"));
        match code {
            Answer::Accept(Code { code }) if code == "42" => None,
            _ => Some(text("wrong admin code")),
        }
    }
}

/// Sampling through `.ok_or_else(..)?` in a helper returning `Result`.
#[mrtr_helper]
async fn summarize(topic: String) -> Result<String, ErrorData> {
    let request = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("summarize {topic}"))],
        100,
    );
    let answer = ask!(summary: sample(request));
    let result = answer
        .accepted()
        .ok_or_else(|| ErrorData::invalid_request("the client would not sample", None))?;
    let content = serde_json::to_value(&result.message.content).unwrap_or_default();
    let text = content
        .pointer("/text")
        .or_else(|| content.pointer("/0/text"))
        .and_then(|t| t.as_str())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ErrorData::invalid_request("the summary came back empty", None))?;
    Ok(text.to_owned())
}

/// Generic over what it elicits, with an `impl Into<String>` parameter.
#[mrtr_helper]
async fn choose<T: mrtr::Elicit + Send + 'static>(prompt: impl Into<String>) -> Answer<T> {
    ask!(pick: elicit::<T>(prompt.into()))
}

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Env {
    env: String,
}

/// A policy object held by the server: its helper method is entered on a field of `self`.
struct Policy {
    limit: u32,
}

impl Policy {
    #[mrtr_helper]
    async fn approve(&self, peer: &Peer<RoleServer>, rows: u32) -> bool {
        // The peer is this request's, on whichever instance the round runs.
        let _ = peer.peer_info();
        if rows <= self.limit {
            return true;
        }
        let answer = ask!(over: elicit::<Confirmation>(format!("{rows} rows is over {}: go on?", self.limit)));
        matches!(answer, Answer::Accept(Confirmation { confirmed: true }))
    }
}

impl Ops {
    /// An associated helper (no receiver), called as `Self::audited`.
    #[mrtr_helper]
    async fn audited(caps: ClientCaps, what: String) -> bool {
        if !caps.elicitation_form() {
            return false;
        }
        let reason = ask!(reason: elicit::<Code>(format!("why {what}?")));
        reason.is_accept()
    }
}

/// The server's own outcome enum, as legacy approval helpers return it.
#[derive(Debug, PartialEq)]
enum Approval {
    Granted,
    Denied,
    Dismissed,
    Unsupported,
}

#[derive(Debug, Serialize, Deserialize, mrtr::Elicit)]
struct Approve {
    yes: bool,
}

/// A lookup that really yields to the runtime before answering.
async fn size_of(name: &str) -> usize {
    tokio::task::yield_now().await;
    name.len()
}

/// Shape 2: an approval helper on `&Peer` mapping each outcome into the server's enum.
#[mrtr_helper]
async fn approve(caps: &ClientCaps, peer: &Peer<RoleServer>, what: &str) -> Approval {
    let _ = peer.peer_info();
    if !caps.elicitation_form() {
        return Approval::Unsupported;
    }
    match ask!(approval: elicit::<Approve>(format!("approve {what}?"))) {
        Answer::Accept(Approve { yes: true }) => Approval::Granted,
        Answer::Accept(_) | Answer::Decline => Approval::Denied,
        Answer::Cancel => Approval::Dismissed,
    }
}

impl Ops {
    /// A gate that calls the approval helper.
    #[mrtr_helper]
    async fn require_grant(
        &self,
        caps: &ClientCaps,
        peer: &Peer<RoleServer>,
        user: String,
    ) -> Option<CallToolResult> {
        match ask!(approve: approve(caps, peer, &format!("admin access for {user}")).await) {
            Approval::Granted => None,
            other => Some(text(format!("{other:?}"))),
        }
    }
}

#[tool_router]
impl Ops {
    #[mrtr_tool]
    #[tool(description = "deletes a thing behind the gate")]
    async fn delete(
        &self,
        caps: ClientCaps,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record(format!("plan delete {}", target.name));
        let stop =
            ask!(gate: require_confirmation(&caps, &format!("delete {}", target.name)).await);
        if let Some(stop) = stop {
            return Ok(stop);
        }
        self.effects.record(format!("deleted {}", target.name));
        Ok(text(format!("deleted {}", target.name)))
    }

    /// Awaits a future of its own, so it stays an `async fn` that awaits the helper in place
    /// (the other tools here are step functions whose helpers the runtime awaits).
    #[mrtr_tool]
    #[tool(description = "sizes a thing, then archives it behind the gate")]
    async fn archive(
        &self,
        caps: ClientCaps,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let size = size_of(&target.name).await;
        self.effects
            .record(format!("sized {} at {size}", target.name));
        let stop =
            ask!(gate: require_confirmation(&caps, &format!("archive {}", target.name)).await);
        if let Some(stop) = stop {
            return Ok(stop);
        }
        self.effects.record(format!("archived {}", target.name));
        Ok(text(format!("archived {} ({size})", target.name)))
    }

    #[mrtr_tool]
    #[tool(description = "moves a thing: the gate twice")]
    async fn rename(
        &self,
        caps: ClientCaps,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let old = target.name.clone();
        let first = ask!(unlink: require_confirmation(&caps, &format!("unlink {old}")).await);
        if let Some(stop) = first {
            return Ok(stop);
        }
        self.effects.record(format!("unlinked {old}"));
        let second = ask!(relink: require_confirmation(&caps, &format!("relink {old}.new")).await);
        if let Some(stop) = second {
            return Ok(stop);
        }
        self.effects.record(format!("relinked {old}"));
        Ok(text(format!("renamed {old}")))
    }

    #[mrtr_tool]
    #[tool(description = "deletes each name behind the gate")]
    async fn purge(
        &self,
        caps: ClientCaps,
        Parameters(batch): Parameters<Batch>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut gone = Vec::new();
        for name in batch.names {
            let stop = ask!(each: require_confirmation(&caps, &format!("purge {name}")).await);
            if stop.is_none() {
                self.effects.record(format!("purged {name}"));
                gone.push(name);
            }
        }
        Ok(text(format!("purged [{}]", gone.join(","))))
    }

    #[mrtr_tool]
    #[tool(description = "an admin-only reset")]
    async fn reset(
        &self,
        caps: ClientCaps,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let stop = ask!(admin: self.require_admin(&caps, target.name.clone()).await);
        if let Some(stop) = stop {
            return Ok(stop);
        }
        self.effects.record("reset");
        Ok(text("reset done"))
    }

    #[mrtr_tool]
    #[tool(description = "summarizes a topic")]
    async fn brief(
        &self,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let summary = ask!(sum: summarize(target.name.clone()).await)?;
        self.effects.record("briefed");
        Ok(text(format!("brief: {summary}")))
    }

    #[mrtr_tool]
    #[tool(description = "picks an environment through a generic helper, then audits")]
    async fn pick(&self, caps: ClientCaps) -> Result<CallToolResult, ErrorData> {
        let env = ask!(env: choose::<Env>("which environment?").await);
        let Answer::Accept(Env { env }) = env else {
            return Ok(text("no environment"));
        };
        let audited = ask!(audit: Self::audited(caps, env.clone()).await);
        self.effects.record(format!("picked {env}"));
        Ok(text(format!("{env} audited={audited}")))
    }

    #[mrtr_tool]
    #[tool(description = "exports rows within the policy")]
    async fn export(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(batch): Parameters<Batch>,
    ) -> Result<CallToolResult, ErrorData> {
        let rows = batch.names.len() as u32;
        let ok = ask!(policy: self.policy.approve(&context.peer, rows).await);
        if ok {
            self.effects.record(format!("exported {rows}"));
        }
        Ok(text(format!("exported={ok}")))
    }

    #[mrtr_tool]
    #[tool(description = "restarts behind the pluggable gate")]
    async fn restart(
        &self,
        caps: ClientCaps,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let action = format!("restart {}", target.name);
        if self.confirmer.needs_confirmation(&action) {
            let stop = ask!(gate: require_confirmation(&caps, &action).await);
            if let Some(stop) = stop {
                return Ok(stop);
            }
        }
        self.effects.record(action.clone());
        Ok(text(format!("{action}: done")))
    }

    #[mrtr_tool]
    #[tool(description = "grants admin behind an approval gate")]
    async fn grant(
        &self,
        caps: ClientCaps,
        context: RequestContext<RoleServer>,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, ErrorData> {
        let stop = ask!(gate: self.require_grant(&caps, &context.peer, target.name.clone()).await);
        if let Some(stop) = stop {
            return Ok(stop);
        }
        self.effects.record(format!("granted {}", target.name));
        Ok(text("granted"))
    }
}

fn server(effects: Effects) -> TestServer<Ops> {
    server_with(effects, Arc::new(FormConfirmer))
}

fn server_with(effects: Effects, confirmer: Arc<dyn Confirmer>) -> TestServer<Ops> {
    let ops = Ops {
        effects,
        policy: Policy { limit: 2 },
        confirmer,
    };
    TestServer::new(ops, Ops::tool_router(), test_runtime("helpers"))
}

fn confirming() -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY).otherwise(|r| {
        if r.text.contains("confirm?") {
            accept(json!({"confirmed": !r.text.contains("purge b")}))
        } else {
            accept(json!({"code": "42"}))
        }
    })
}

#[tokio::test]
async fn a_gate_helper_asks_under_its_call_site_key() {
    let both = run_both(server, confirming(), "delete", json!({"name": "db"})).await;
    both.assert_table("deleted db", 1, 1);
    assert_eq!(both.modern.asked_keys(), [["gate.confirm"]]);
    assert_eq!(both.legacy.effects, ["plan delete db", "deleted db"]);
}

#[tokio::test]
async fn a_handler_awaiting_its_own_future_enters_the_helper_in_place() {
    let both = run_both(server, confirming(), "archive", json!({"name": "db"})).await;
    both.assert_table("archived db (2)", 1, 1);
    assert_eq!(both.modern.asked_keys(), [["gate.confirm"]]);
    assert_eq!(both.legacy.effects, ["sized db at 2", "archived db"]);
    let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit("archive db", [Reply::Decline]);
    let both = run_both(server, client, "archive", json!({"name": "db"})).await;
    both.assert_table("not confirmed: archive db", 1, 1);
    assert_eq!(both.legacy.effects, ["sized db at 2"]);
}

#[tokio::test]
async fn a_declined_gate_stops_the_tool_with_the_helpers_result() {
    let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit("delete db", [Reply::Decline]);
    let both = run_both(server, client, "delete", json!({"name": "db"})).await;
    both.assert_table("not confirmed: delete db", 1, 1);
    assert_eq!(both.legacy.effects, ["plan delete db"]);
}

#[tokio::test]
async fn a_gate_without_the_capability_returns_without_asking() {
    let client = ScriptedClient::new(Caps::NONE);
    let both = run_both(server, client, "delete", json!({"name": "db"})).await;
    both.assert_table("cannot confirm: the client has no form elicitation", 0, 0);
}

#[tokio::test]
async fn the_same_helper_twice_asks_under_two_prefixes() {
    let both = run_both(server, confirming(), "rename", json!({"name": "a"})).await;
    both.assert_table("renamed a", 2, 2);
    assert_eq!(
        both.modern.asked_keys(),
        [["unlink.confirm"], ["relink.confirm"]]
    );
    assert_eq!(both.legacy.effects, ["unlinked a", "relinked a"]);
}

#[tokio::test]
async fn a_helper_in_a_loop_asks_one_key_per_iteration() {
    let both = run_both(
        server,
        confirming(),
        "purge",
        json!({"names": ["a", "b", "c"]}),
    )
    .await;
    both.assert_table("purged [a,c]", 3, 3);
    assert_eq!(
        both.modern.asked_keys(),
        [["each#0.confirm"], ["each#1.confirm"], ["each#2.confirm"]]
    );
    assert_eq!(both.legacy.effects, ["purged a", "purged c"]);
}

#[tokio::test]
async fn a_helper_calling_a_helper_nests_both_prefixes() {
    let both = run_both(server, confirming(), "reset", json!({"name": "bob"})).await;
    both.assert_table("reset done", 2, 2);
    assert_eq!(
        both.modern.asked_keys(),
        [["admin.gate.confirm"], ["admin.code"]]
    );
    assert_eq!(both.legacy.effects, ["admin check bob", "reset"]);
}

#[tokio::test]
async fn an_inner_refusal_returns_early_through_both_helpers() {
    let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit("admin bob", [Reply::Decline]);
    let both = run_both(server, client, "reset", json!({"name": "bob"})).await;
    both.assert_table("not confirmed: act as admin bob", 1, 1);
    assert_eq!(both.legacy.effects, ["admin check bob"]);
}

#[tokio::test]
async fn a_result_helper_propagates_its_error_with_question_mark() {
    let sampled = ScriptedClient::new(Caps::ALL).on_sample("summarize", [text_reply("short")]);
    let both = run_both(server, sampled, "brief", json!({"name": "q3"})).await;
    both.assert_table("brief: short", 1, 1);
    let empty = ScriptedClient::new(Caps::ALL).on_sample("summarize", [text_reply("")]);
    let both = run_both(server, empty, "brief", json!({"name": "q3"})).await;
    both.assert_table("rpc error -32600: the summary came back empty", 1, 1);
    assert!(both.legacy.effects.is_empty());
}

#[tokio::test]
async fn a_pluggable_gate_decides_and_one_helper_asks() {
    let both = run_both(server, confirming(), "restart", json!({"name": "api"})).await;
    both.assert_table("restart api: done", 1, 1);
    assert_eq!(both.modern.asked_keys(), [["gate.confirm"]]);
    let automated = |effects| server_with(effects, Arc::new(NoConfirmation));
    let both = run_both(
        automated,
        ScriptedClient::new(Caps::FORM_ONLY),
        "restart",
        json!({"name": "api"}),
    )
    .await;
    both.assert_table("restart api: done", 0, 0);
    assert_eq!(both.legacy.effects, ["restart api"]);
}

#[tokio::test]
async fn an_approval_helper_maps_every_outcome_through_a_gate() {
    let grant =
        |reply: Reply| ScriptedClient::new(Caps::FORM_ONLY).on_elicit("approve admin", [reply]);
    for (reply, expected, effects) in [
        (accept(json!({"yes": true})), "granted", vec!["granted bob"]),
        (accept(json!({"yes": false})), "Denied", vec![]),
        (Reply::Decline, "Denied", vec![]),
        (Reply::Cancel, "Dismissed", vec![]),
    ] {
        let both = run_both(server, grant(reply), "grant", json!({"name": "bob"})).await;
        both.assert_table(expected, 1, 1);
        assert_eq!(both.modern.asked_keys(), [["gate.approve.approval"]]);
        assert_eq!(both.legacy.effects, effects);
    }
    let both = run_both(
        server,
        ScriptedClient::new(Caps::NONE),
        "grant",
        json!({"name": "bob"}),
    )
    .await;
    both.assert_table("Unsupported", 0, 0);
}

#[tokio::test]
async fn a_generic_helper_and_an_associated_helper() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("which environment?", [accept(json!({"env": "prod"}))])
        .on_elicit("why prod?", [accept(json!({"code": "release"}))]);
    let both = run_both(server, client, "pick", json!({})).await;
    both.assert_table("prod audited=true", 2, 2);
    assert_eq!(both.modern.asked_keys(), [["env.pick"], ["audit.reason"]]);
    assert_eq!(both.legacy.effects, ["picked prod"]);
}

#[tokio::test]
async fn a_helper_method_on_a_field_of_self_with_the_requests_peer() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("3 rows is over 2", [accept(json!({"confirmed": true}))]);
    let both = run_both(server, client, "export", json!({"names": ["a", "b", "c"]})).await;
    both.assert_table("exported=true", 1, 1);
    assert_eq!(both.modern.asked_keys(), [["policy.over"]]);
    let within = ScriptedClient::new(Caps::FORM_ONLY);
    let both = run_both(server, within, "export", json!({"names": ["a"]})).await;
    both.assert_table("exported=true", 0, 0);
}

#[tokio::test]
async fn every_round_on_a_fresh_instance_resumes_inside_nested_helpers() {
    let run = run_fresh(server, confirming(), "reset", json!({"name": "bob"})).await;
    assert_eq!(run.outcome(), "reset done");
    assert_eq!(run.asked_keys(), [["admin.gate.confirm"], ["admin.code"]]);
    // The admin check ran once, before the first suspension; resuming never re-ran it.
    assert_eq!(run.effects, ["admin check bob", "reset"]);
    let run = run_fresh(
        server,
        confirming(),
        "purge",
        json!({"names": ["a", "b", "c"]}),
    )
    .await;
    assert_eq!(run.outcome(), "purged [a,c]");
    assert_eq!(run.effects, ["purged a", "purged c"]);
}

/// Edits inside a continuation, as a redeploy that changed a helper would present them: the
/// harness holds the test key, opens the token, rewrites one frame and seals it again.
mod edits {
    use super::*;
    use ciborium::Value as Cbor;
    use mrtr::config::{KeyRing, StateConfig, StateKey};

    fn sealer() -> mrtr::__bench::Sealer {
        let key = StateKey::new("t1", TEST_KEY.to_vec()).expect("the kit's key");
        mrtr::__bench::sealer(&StateConfig::new("helpers", KeyRing::new(key))).expect("a sealer")
    }

    fn binding(tool: &str, arguments: &serde_json::Value) -> mrtr::__bench::Binding {
        mrtr::__bench::Binding {
            bind: mrtr::__bench::bind_digest("tools/call", tool, arguments.as_object()),
            principal: None,
        }
    }

    /// The one frame a call-site step carries, `[step, fingerprint, carried]`, decoded from
    /// the step's carried bytes.
    fn frame_of(carried: &[u8]) -> Vec<Cbor> {
        match ciborium::from_reader::<Cbor, _>(carried).expect("one CBOR item") {
            Cbor::Array(items) if items.len() == 3 => items,
            other => panic!("a frame is an array of three, got {other:?}"),
        }
    }

    const STEP: usize = 0;
    const FINGERPRINT: usize = 1;
    const CARRIED: usize = 2;

    fn encode(frame: Vec<Cbor>) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::into_writer(&Cbor::Array(frame), &mut out).expect("encodes");
        out
    }

    /// `reset` suspended inside `require_admin` inside `require_confirmation`, its token
    /// rewritten by `edit` (given the outer and inner frames), then retried with the answer.
    async fn retry_edited(
        edit: impl FnOnce(&mut [Cbor], &mut [Cbor]),
    ) -> (
        Result<rmcp::model::CallToolResponse, rmcp::ServiceError>,
        Vec<String>,
    ) {
        let effects = Effects::default();
        let session = connect(
            server(effects.clone()),
            ScriptedClient::new(Caps::FORM_ONLY),
            Era::Modern,
        )
        .await;
        let arguments = json!({"name": "bob"});
        let first =
            expect_input_required(session.round("reset", arguments.clone(), None, None).await);
        assert_eq!(keys_of(&first), ["admin.gate.confirm"]);
        let token = first.request_state.clone().expect("a continuation");
        let sealer = sealer();
        let binding = binding("reset", &arguments);
        let mut continuation = sealer
            .open(&token, &binding)
            .expect("the kit's token opens")
            .continuation;
        assert_eq!(continuation.step, "AfterAdmin");
        // Steps are indices into each helper's table: `AfterGate` and `AfterConfirm` are the first.
        let mut outer = frame_of(&continuation.carried);
        assert_eq!(outer[STEP], Cbor::Integer(0.into()));
        let mut inner = frame_of(outer[CARRIED].as_bytes().expect("bytes"));
        assert_eq!(inner[STEP], Cbor::Integer(0.into()));
        edit(&mut outer, &mut inner);
        outer[CARRIED] = Cbor::Bytes(encode(inner));
        continuation.carried = encode(outer);
        let edited = sealer.seal(&continuation, &binding).expect("reseals");
        let answers =
            json!({"admin.gate.confirm": {"action": "accept", "content": {"confirmed": true}}});
        let retry = session
            .round("reset", arguments, Some(answers), Some(edited))
            .await;
        session.close().await;
        (retry, effects.all())
    }

    fn bump(frame: &mut [Cbor]) {
        let value =
            u64::try_from(frame[FINGERPRINT].as_integer().expect("an integer")).expect("u64");
        frame[FINGERPRINT] = Cbor::Integer((value ^ 1).into());
    }

    #[tokio::test]
    async fn a_continuation_resealed_unchanged_resumes_inside_the_helpers() {
        let (retry, effects) = retry_edited(|_, _| {}).await;
        let asked = expect_input_required(retry);
        assert_eq!(keys_of(&asked), ["admin.code"]);
        assert_eq!(effects, ["admin check bob"]);
    }

    #[tokio::test]
    async fn a_continuation_minted_inside_an_edited_helper_is_refused_before_any_code_runs() {
        let (retry, effects) = retry_edited(|_, inner| bump(inner)).await;
        // The wire says only that the state is refused; the reason (`layout fingerprint .. does
        // not match this build`) goes to the operator's log.
        let (code, message) = expect_rpc_error(retry);
        assert_eq!(code, -32602, "{message}");
        assert_eq!(effects, ["admin check bob"], "nothing ran on the retry");
        let (retry, effects) = retry_edited(|outer, _| bump(outer)).await;
        assert_eq!(expect_rpc_error(retry).0, -32602);
        assert_eq!(effects, ["admin check bob"]);
        let (retry, effects) = retry_edited(|_, inner| inner[STEP] = Cbor::Integer(7.into())).await;
        assert_eq!(expect_rpc_error(retry).0, -32602);
        assert_eq!(effects, ["admin check bob"]);
    }
}

/// Every helper-calling tool, under many generated answer scripts (accept with generated
/// content, decline, cancel per key), every 2026-07-28 round on a fresh server: the legacy run
/// and the MRTR run end alike and leave the same effect log.
#[tokio::test]
async fn legacy_and_mrtr_agree_on_every_helper_tool_under_generated_answers() {
    let calls = [
        ("delete", json!({"name": "db"})),
        ("rename", json!({"name": "a"})),
        ("purge", json!({"names": ["a", "b", "c"]})),
        ("reset", json!({"name": "bob"})),
        ("pick", json!({})),
        ("export", json!({"names": ["a", "b", "c"]})),
        ("restart", json!({"name": "api"})),
        ("grant", json!({"name": "bob"})),
    ];
    for (tool, arguments) in calls {
        equivalent(server, tool, arguments)
            .caps(Caps::FORM_ONLY)
            .cases(24)
            .fresh_server_per_round()
            .run()
            .await;
    }
}

#[test]
fn the_callers_step_table_names_the_call_site_and_carries_the_frame() {
    let [gate] = Ops::DELETE_STEPS else {
        panic!("one step: {:?}", Ops::DELETE_STEPS)
    };
    assert_eq!(
        (gate.name, gate.keys, gate.carried),
        ("AfterGate", &["gate"][..], &["#gate"][..])
    );
    let [each] = Ops::PURGE_STEPS else {
        panic!("one step: {:?}", Ops::PURGE_STEPS)
    };
    // In a loop the site key carries the iteration; the frame rides with the loop's locals.
    assert_eq!(each.keys, ["each#{i0}"]);
    assert!(each.carried.ends_with(&["#each"]), "{:?}", each.carried);
}
