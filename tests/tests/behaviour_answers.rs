//! Answers that do not settle an ask: missing, malformed, under the wrong key, partial, or
//! refused. Each is asked again without re-running any user code; answers are decoded per key.
//! Raw rounds (hand-built `inputResponses`) pin the 2026-07-28 wire shapes; scripted clients
//! check the same on a legacy session, where the re-ask is a second real request.

#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::ServiceError;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Target {
    environment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Count {
    n: u32,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    service: String,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn describe<T>(answer: Answer<T>, accepted: impl FnOnce(T) -> String) -> String {
    match answer {
        Answer::Accept(value) => accepted(value),
        Answer::Decline => "declined".to_owned(),
        Answer::Cancel => "cancelled".to_owned(),
    }
}

struct Asker {
    effects: Effects,
}

#[tool_router]
impl Asker {
    #[mrtr_tool]
    #[tool(description = "one ask, with an effect on each side")]
    async fn deploy(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let target = ask!(target_env: elicit::<Target>(format!("Deploy {}?", args.service)));
        self.effects.record("after");
        Ok(reply(describe(target, |t| t.environment)))
    }

    #[mrtr_tool]
    #[tool(description = "two asks in one round")]
    async fn pair(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let (env, replicas) = ask!(
            env: elicit::<Target>(format!("Environment for {}?", args.service)),
            replicas: elicit::<Count>("Replicas?")
        );
        self.effects.record("after");
        let env = describe(env, |t| t.environment);
        let replicas = describe(replicas, |c| c.n.to_string());
        Ok(reply(format!("env={env} replicas={replicas}")))
    }
}

#[tool_router(router = gated_router)]
impl Asker {
    #[mrtr_tool]
    #[tool(description = "a URL elicitation")]
    async fn sign_in(&self) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let opened =
            ask!(login: elicit_url("Sign in to continue", "https://auth.example.invalid/start"));
        self.effects.record("after");
        Ok(reply(describe(opened, |()| "signed in".to_owned())))
    }

    #[mrtr_tool]
    #[tool(description = "sampling and roots in one round")]
    async fn sample_and_roots(&self) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let request = rmcp::model::CreateMessageRequestParams::new(
            vec![rmcp::model::SamplingMessage::user_text("Say hi")],
            16,
        );
        let (said, listed) = ask!(said: sample(request), listed: roots());
        self.effects.record("after");
        let said = describe(said, |result| result.model);
        let listed = describe(listed, |list| list.roots.len().to_string());
        Ok(reply(format!("{said} {listed}")))
    }
}

fn gated(effects: Effects) -> TestServer<Asker> {
    TestServer::new(
        Asker { effects },
        Asker::gated_router(),
        test_runtime("behaviour-answers"),
    )
}

fn server(effects: Effects) -> TestServer<Asker> {
    TestServer::new(
        Asker { effects },
        Asker::tool_router(),
        test_runtime("behaviour-answers"),
    )
}

/// A modern session on a fresh server, plus its effect log.
async fn modern() -> (Session, Effects) {
    modern_on(server, Caps::FORM_ONLY).await
}

/// A modern session on a fresh `serve`r for a client declaring `caps`, plus its effect log.
async fn modern_on(serve: fn(Effects) -> TestServer<Asker>, caps: Caps) -> (Session, Effects) {
    let effects = Effects::default();
    let session = connect(
        serve(effects.clone()),
        ScriptedClient::new(caps),
        Era::Modern,
    )
    .await;
    (session, effects)
}

fn accepted(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

const ARGS: fn() -> Value = || json!({"service": "api"});

#[tokio::test]
async fn missing_answer_is_asked_again_without_rerunning_code() {
    let (session, effects) = modern().await;
    let first = expect_input_required(session.round("deploy", ARGS(), None, None).await);
    assert_eq!(keys_of(&first), ["target_env"]);
    assert_eq!(effects.all(), ["plan"]);

    let again = expect_input_required(
        session
            .round("deploy", ARGS(), None, first.request_state.clone())
            .await,
    );
    assert_eq!(keys_of(&again), ["target_env"]);
    assert_eq!(
        requests_of(&again),
        requests_of(&first),
        "the same request is re-issued, not re-evaluated"
    );
    assert!(again.request_state.is_some());
    assert_eq!(effects.all(), ["plan"], "a re-ask runs no user code");

    let answer = json!({"target_env": accepted(json!({"environment": "staging"}))});
    let done = expect_complete(
        session
            .round("deploy", ARGS(), Some(answer), again.request_state)
            .await,
    );
    assert_eq!(text_of(&done), "staging");
    assert_eq!(effects.all(), ["plan", "after"]);
    session.close().await;
}

#[tokio::test]
async fn malformed_answers_are_asked_again_without_rerunning_code() {
    let (session, effects) = modern().await;
    let first = expect_input_required(session.round("deploy", ARGS(), None, None).await);
    let malformed = [
        json!(12345),
        Value::Null,
        json!({}),
        json!("accept"),
        json!({"action": "maybe"}),
        json!({"action": "accept"}),
        accepted(json!({"environment": 5})),
        accepted(json!({"region": "eu"})),
        accepted(json!([1, 2])),
    ];
    let mut state = first.request_state.clone();
    for bad in malformed {
        let response = session
            .round(
                "deploy",
                ARGS(),
                Some(json!({"target_env": bad.clone()})),
                state,
            )
            .await;
        let again = expect_input_required(response);
        assert_eq!(keys_of(&again), ["target_env"], "after {bad}");
        assert_eq!(
            effects.all(),
            ["plan"],
            "after {bad}: a re-ask runs no user code"
        );
        state = again.request_state;
    }
    let answer = json!({"target_env": accepted(json!({"environment": "prod"}))});
    let done = expect_complete(session.round("deploy", ARGS(), Some(answer), state).await);
    assert_eq!(text_of(&done), "prod");
    assert_eq!(effects.all(), ["plan", "after"]);
    session.close().await;
}

#[tokio::test]
async fn answer_under_a_wrong_key_is_ignored_and_the_key_asked_again() {
    let (session, effects) = modern().await;
    let first = expect_input_required(session.round("deploy", ARGS(), None, None).await);
    let wrong = json!({"target": accepted(json!({"environment": "prod"})), "env": accepted(json!({"environment": "prod"}))});
    let again = expect_input_required(
        session
            .round("deploy", ARGS(), Some(wrong), first.request_state)
            .await,
    );
    assert_eq!(keys_of(&again), ["target_env"]);
    assert_eq!(effects.all(), ["plan"]);
    session.close().await;
}

#[tokio::test]
async fn partial_answers_are_kept_and_only_the_missing_key_is_asked_again() {
    let (session, effects) = modern().await;
    let first = expect_input_required(session.round("pair", ARGS(), None, None).await);
    assert_eq!(keys_of(&first), ["env", "replicas"]);

    let only_env = json!({"env": accepted(json!({"environment": "staging"}))});
    let second = expect_input_required(
        session
            .round("pair", ARGS(), Some(only_env), first.request_state)
            .await,
    );
    assert_eq!(
        keys_of(&second),
        ["replicas"],
        "only the unanswered key goes out again"
    );
    assert_eq!(effects.all(), ["plan"]);

    let only_replicas = json!({"replicas": accepted(json!({"n": 4}))});
    let done = expect_complete(
        session
            .round("pair", ARGS(), Some(only_replicas), second.request_state)
            .await,
    );
    assert_eq!(
        text_of(&done),
        "env=staging replicas=4",
        "the earlier round's answer was kept in the state"
    );
    assert_eq!(effects.all(), ["plan", "after"]);
    session.close().await;
}

#[tokio::test]
async fn an_accepted_key_and_a_cancelled_key_are_each_decoded() {
    let (session, effects) = modern().await;
    let first = expect_input_required(session.round("pair", ARGS(), None, None).await);
    let answers =
        json!({"env": accepted(json!({"environment": "prod"})), "replicas": {"action": "cancel"}});
    let done = expect_complete(
        session
            .round("pair", ARGS(), Some(answers), first.request_state)
            .await,
    );
    assert_eq!(text_of(&done), "env=prod replicas=cancelled");
    assert_eq!(effects.all(), ["plan", "after"]);
    session.close().await;

    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Environment for api?", [Reply::Decline])
            .on_elicit("Replicas?", [accept(json!({"n": 2}))])
    };
    let both = run_both(server, client, "pair", ARGS()).await;
    both.assert_table("env=declined replicas=2", 1, 2);
    assert_eq!(both.legacy.effects, ["plan", "after"]);
}

#[tokio::test]
async fn a_malformed_client_answer_is_asked_again_in_both_eras() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
            "Deploy api?",
            [
                accept(json!({"environment": 5})),
                Reply::AcceptEmpty,
                accept(json!({"environment": "prod"})),
            ],
        )
    };
    let both = run_both(server, client, "deploy", ARGS()).await;
    both.assert_table("prod", 3, 3);
    assert_eq!(
        both.legacy.effects,
        ["plan", "after"],
        "the re-ask re-ran nothing"
    );
    assert_eq!(
        both.modern.asked_keys(),
        [["target_env"], ["target_env"], ["target_env"]]
    );
}

#[tokio::test]
async fn a_legacy_client_that_never_answers_validly_fails_the_call_without_running_on() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("Deploy api?", [accept(json!({"environment": 5}))]);
    let legacy = run(Era::Legacy, server, client, "deploy", ARGS()).await;
    assert!(
        legacy.outcome().starts_with("rpc error -32603"),
        "{}",
        legacy.outcome()
    );
    assert_eq!(legacy.effects, ["plan"]);
    assert_eq!(legacy.asks(), 3, "asked a bounded number of times");

    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("Deploy api?", [accept(json!({"environment": 5}))]);
    let modern = run(Era::Modern, server, client, "deploy", ARGS()).await;
    assert!(
        matches!(
            modern.result,
            Err(ServiceError::InputRequiredRoundsExceeded { .. })
        ),
        "the modern client gives up on its own: {:?}",
        modern.result
    );
    assert_eq!(modern.effects, ["plan"]);
}

#[tokio::test]
async fn an_ask_the_client_cannot_serve_is_refused_with_32021_in_both_eras() {
    for era in ERAS {
        let client = ScriptedClient::new(Caps::NONE);
        let run = run(era, server, client, "deploy", ARGS()).await;
        assert!(
            run.outcome().starts_with("rpc error -32021"),
            "{era:?}: {}",
            run.outcome()
        );
        assert_eq!(run.effects, ["plan"], "{era:?}");
        assert_eq!(
            run.asks(),
            0,
            "{era:?}: nothing undeclared goes on the wire"
        );
    }
}

#[tokio::test]
async fn url_elicitation_is_answered_in_both_eras() {
    let client =
        || ScriptedClient::new(Caps::ALL).on_elicit("Sign in to continue", [accept(Value::Null)]);
    let both = run_both(gated, client, "sign_in", json!({})).await;
    both.assert_table("signed in", 1, 1);
    assert_eq!(
        both.legacy.received[0].params["url"],
        "https://auth.example.invalid/start"
    );
    assert_eq!(
        both.modern.received[0].params["url"],
        "https://auth.example.invalid/start"
    );
}

#[tokio::test]
async fn required_capabilities_name_exactly_what_is_missing() {
    let cases = [
        (
            "sign_in",
            Caps::FORM_ONLY,
            json!({"elicitation": {"url": {}}}),
        ),
        (
            "sample_and_roots",
            Caps::FORM_ONLY,
            json!({"sampling": {}, "roots": {}}),
        ),
        (
            "sample_and_roots",
            Caps {
                sampling: true,
                ..Caps::NONE
            },
            json!({"roots": {}}),
        ),
    ];
    for (tool, caps, missing) in cases {
        for era in ERAS {
            let effects = Effects::default();
            let session = connect(gated(effects.clone()), ScriptedClient::new(caps), era).await;
            let (code, data) = expect_rpc_error_data(session.call(tool, json!({})).await);
            assert_eq!(code, -32021, "{tool} {era:?}");
            assert_eq!(
                data,
                Some(json!({"requiredCapabilities": missing})),
                "{tool} {era:?}"
            );
            assert_eq!(effects.all(), ["plan"], "{tool} {era:?}");
            assert!(
                session.client.received().is_empty(),
                "{tool} {era:?}: nothing undeclared was sent"
            );
            session.close().await;
        }
    }
}

#[tokio::test]
async fn sampling_and_roots_in_one_round_are_answered_together() {
    let client = || {
        ScriptedClient::new(Caps::ALL)
            .on_sample("Say hi", [text("hi")])
            .on_roots([root_uris(["file:///a"])])
    };
    let both = run_both(gated, client, "sample_and_roots", json!({})).await;
    both.assert_table("scripted-model 1", 1, 2);
    assert_eq!(both.modern.asked_keys(), [["listed", "said"]]);
}

/// A sampling ask's params travel sealed and are not decoded on a round that brings no answer
/// for them: asked again, they must go out as the first round sent them, next to the answer
/// the round did bring, kept.
#[tokio::test]
async fn a_resumed_sampling_ask_without_its_answer_is_asked_again_as_it_was_sent() {
    let (session, effects) = modern_on(gated, Caps::ALL).await;
    let first = expect_input_required(
        session
            .round("sample_and_roots", json!({}), None, None)
            .await,
    );
    let asked = |result: &rmcp::model::InputRequiredResult, key: &str| {
        serde_json::to_value(&result.input_requests.as_ref().unwrap()[key]).unwrap()
    };
    let said = asked(&first, "said");
    assert_eq!(said["params"]["messages"][0]["content"]["text"], "Say hi");

    let only_roots = json!({"listed": {"roots": [{"uri": "file:///a"}]}});
    let second = expect_input_required(
        session
            .round(
                "sample_and_roots",
                json!({}),
                Some(only_roots),
                first.request_state,
            )
            .await,
    );
    assert_eq!(keys_of(&second), ["said"]);
    assert_eq!(
        asked(&second, "said"),
        said,
        "the same request, decoded from the state"
    );

    let hi = json!({
        "said": {
            "role": "assistant",
            "content": {"type": "text", "text": "hi"},
            "model": "scripted",
        }
    });
    let done = expect_complete(
        session
            .round(
                "sample_and_roots",
                json!({}),
                Some(hi),
                second.request_state,
            )
            .await,
    );
    assert_eq!(text_of(&done), "scripted 1");
    assert_eq!(effects.all(), ["plan", "after"], "no code ran twice");
    session.close().await;
}

#[tokio::test]
async fn a_legacy_client_that_fails_the_request_reads_as_a_cancel() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("Deploy api?", [Reply::Fail("dialog crashed".into())]);
    let legacy = run(Era::Legacy, server, client, "deploy", ARGS()).await;
    assert_eq!(
        legacy.outcome(),
        "cancelled",
        "a failed elicitation is a dismissed dialog, never consent"
    );
    assert_eq!(legacy.effects, ["plan", "after"]);
    assert_eq!(legacy.asks(), 1);
}
