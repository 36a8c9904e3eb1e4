//! `requestState` is attacker input. A token that was tampered with, minted for another tool or
//! other arguments, sealed with another key, expired, or minted by a build whose step layout
//! differs is refused with one generic JSON-RPC -32602, and no user code runs. A valid token
//! resumes on any instance that shares the key.

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The wire message of every `requestState` rejection: it never says which check failed.
const REJECTED: &str =
    "Invalid params: requestState is invalid, expired or does not belong to this request";
const INVALID_PARAMS: i32 = -32602;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Target {
    environment: String,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    service: String,
    replicas: u32,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

struct Deployer {
    effects: Effects,
}

#[tool_router]
impl Deployer {
    #[mrtr_tool]
    #[tool(description = "deploy after one ask")]
    async fn deploy(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let plan = format!("plan-{}-{}", args.service, args.replicas);
        self.effects.record("plan");
        let target = ask!(target_env: elicit::<Target>(format!("Deploy {}?", args.service)));
        self.effects.record("after");
        match target {
            Answer::Accept(target) => Ok(reply(format!("{plan} to {}", target.environment))),
            Answer::Decline | Answer::Cancel => Ok(reply("not deployed")),
        }
    }

    /// The same body under another name: its tokens must not open `deploy`.
    #[mrtr_tool]
    #[tool(description = "deploy's twin")]
    async fn deploy_twin(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let plan = format!("plan-{}-{}", args.service, args.replicas);
        self.effects.record("plan");
        let target = ask!(target_env: elicit::<Target>(format!("Deploy {}?", args.service)));
        self.effects.record("after");
        match target {
            Answer::Accept(target) => Ok(reply(format!("{plan} to {}", target.environment))),
            Answer::Decline | Answer::Cancel => Ok(reply("not deployed")),
        }
    }
}

fn deployer(effects: Effects) -> TestServer<Deployer> {
    TestServer::new(
        Deployer { effects },
        Deployer::tool_router(),
        test_runtime("behaviour-state"),
    )
}

fn args() -> Value {
    json!({"service": "api", "replicas": 2})
}

fn staging() -> Value {
    json!({"target_env": {"action": "accept", "content": {"environment": "staging"}}})
}

/// A fresh modern session on a deployer, its effects, and a first-round token for `tool`.
async fn first_round(tool: &str) -> (Session, Effects, String) {
    let effects = Effects::default();
    let session = connect(
        deployer(effects.clone()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(session.round(tool, args(), None, None).await);
    let token = first
        .request_state
        .expect("a suspended call carries requestState");
    (session, effects, token)
}

fn assert_rejected(
    response: Result<rmcp::model::CallToolResponse, rmcp::service::ServiceError>,
    what: &str,
) {
    let (code, message) = expect_rpc_error(response);
    assert_eq!(code, INVALID_PARAMS, "{what}");
    assert_eq!(message, REJECTED, "{what}: the message names no check");
}

#[tokio::test]
async fn valid_token_resumes_and_runs_only_the_rest() {
    let (session, effects, token) = first_round("deploy").await;
    let done = expect_complete(
        session
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
    );
    assert_eq!(text_of(&done), "plan-api-2 to staging");
    assert_eq!(effects.all(), ["plan", "after"]);
    session.close().await;
}

#[tokio::test]
async fn tampered_state_is_rejected_with_invalid_params() {
    let (session, effects, token) = first_round("deploy").await;
    let middle = token.len() / 2;
    let flipped_char = |c: char| if c == 'A' { 'B' } else { 'A' };
    let mut flipped = token.clone();
    flipped.replace_range(
        middle..middle + 1,
        &flipped_char(token[middle..].chars().next().unwrap()).to_string(),
    );
    let tampered = [
        ("one character changed", flipped),
        ("suffix appended", format!("{token}-TAMPERED")),
        ("truncated", token[..token.len() - 1].to_owned()),
        ("first half only", token[..middle].to_owned()),
        ("empty", String::new()),
        (
            "not a token",
            "eyJzdGVwIjoiQWZ0ZXJUYXJnZXRFbnYifQ".to_owned(),
        ),
    ];
    for (what, state) in tampered {
        assert_rejected(
            session
                .round("deploy", args(), Some(staging()), Some(state))
                .await,
            what,
        );
    }
    assert_eq!(
        effects.all(),
        ["plan"],
        "no user code ran for a rejected token"
    );
    session.close().await;
}

#[tokio::test]
async fn token_of_another_tool_is_rejected_with_invalid_params() {
    let (session, effects, token) = first_round("deploy_twin").await;
    assert_rejected(
        session
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
        "cross-tool",
    );
    assert_eq!(effects.all(), ["plan"]);
    session.close().await;
}

#[tokio::test]
async fn token_for_other_arguments_is_rejected_but_reordered_arguments_are_not() {
    let (session, effects, token) = first_round("deploy").await;
    let other = json!({"service": "api", "replicas": 3});
    assert_rejected(
        session
            .round("deploy", other, Some(staging()), Some(token.clone()))
            .await,
        "cross-arguments",
    );
    assert_eq!(effects.all(), ["plan"]);

    let reordered: Value =
        serde_json::from_str(r#"{ "replicas" : 2, "service" : "api" }"#).expect("valid JSON");
    let done = expect_complete(
        session
            .round("deploy", reordered, Some(staging()), Some(token))
            .await,
    );
    assert_eq!(
        text_of(&done),
        "plan-api-2 to staging",
        "the same arguments in another key order bind the same"
    );
    session.close().await;
}

#[tokio::test]
async fn token_resumes_on_another_instance_sharing_the_key() {
    let (first, first_effects, token) = first_round("deploy").await;
    first.close().await;
    let effects = Effects::default();
    let second = connect(
        deployer(effects.clone()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let done = expect_complete(
        second
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
    );
    assert_eq!(text_of(&done), "plan-api-2 to staging");
    assert_eq!(first_effects.all(), ["plan"]);
    assert_eq!(
        effects.all(),
        ["after"],
        "the second instance ran only the code after the ask"
    );
    second.close().await;
}

#[tokio::test]
async fn token_sealed_with_another_key_is_rejected_with_invalid_params() {
    let (first, _, token) = first_round("deploy").await;
    first.close().await;
    let effects = Effects::default();
    let server = TestServer::new(
        Deployer {
            effects: effects.clone(),
        },
        Deployer::tool_router(),
        runtime_with("behaviour-state", b"a different key of thirty-two by", None),
    );
    let other = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
    assert_rejected(
        other
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
        "other key",
    );
    assert!(effects.all().is_empty());
    other.close().await;
}

#[tokio::test]
async fn token_for_another_audience_is_rejected_with_invalid_params() {
    let (first, _, token) = first_round("deploy").await;
    first.close().await;
    let effects = Effects::default();
    let server = TestServer::new(
        Deployer {
            effects: effects.clone(),
        },
        Deployer::tool_router(),
        runtime_with("another-service", &TEST_KEY, None),
    );
    let other = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
    assert_rejected(
        other
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
        "other audience",
    );
    assert!(effects.all().is_empty());
    other.close().await;
}

#[tokio::test]
async fn expired_state_is_rejected_with_invalid_params() {
    let clock = TestClock::at(1_900_000_000);
    let effects = Effects::default();
    let server = TestServer::new(
        Deployer {
            effects: effects.clone(),
        },
        Deployer::tool_router(),
        runtime_with("behaviour-state", &TEST_KEY, Some(&clock)),
    );
    let session = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
    let first = expect_input_required(session.round("deploy", args(), None, None).await);
    clock.advance(299);
    let again = expect_input_required(
        session
            .round("deploy", args(), None, first.request_state)
            .await,
    );
    assert_eq!(
        keys_of(&again),
        ["target_env"],
        "still valid just inside the default five minutes"
    );
    clock.advance(301);
    assert_rejected(
        session
            .round("deploy", args(), Some(staging()), again.request_state)
            .await,
        "expired",
    );
    assert_eq!(effects.all(), ["plan"]);
    session.close().await;
}

#[tokio::test]
async fn a_single_use_token_redeemed_twice_is_rejected_the_second_time() {
    let effects = Effects::default();
    let server = TestServer::new(
        Deployer {
            effects: effects.clone(),
        },
        Deployer::tool_router(),
        single_use_runtime("behaviour-state"),
    );
    let session = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
    let first = expect_input_required(session.round("deploy", args(), None, None).await);
    let token = first
        .request_state
        .expect("a suspended call carries requestState");
    let done = expect_complete(
        session
            .round("deploy", args(), Some(staging()), Some(token.clone()))
            .await,
    );
    assert_eq!(text_of(&done), "plan-api-2 to staging");
    assert_rejected(
        session
            .round("deploy", args(), Some(staging()), Some(token))
            .await,
        "replayed",
    );
    assert_eq!(effects.all(), ["plan", "after"], "the replay ran nothing");
    session.close().await;
}

#[tokio::test]
async fn parallel_calls_on_one_session_keep_their_own_state() {
    let client = ScriptedClient::new(Caps::FORM_ONLY)
        .on_elicit("Deploy alpha?", [accept(json!({"environment": "staging"}))])
        .on_elicit("Deploy beta?", [accept(json!({"environment": "prod"}))]);
    let effects = Effects::default();
    let session = connect(deployer(effects.clone()), client, Era::Modern).await;
    let (alpha, beta) = tokio::join!(
        session.call("deploy", json!({"service": "alpha", "replicas": 1})),
        session.call("deploy", json!({"service": "beta", "replicas": 5})),
    );
    assert_eq!(
        text_of(&alpha.expect("alpha completes")),
        "plan-alpha-1 to staging"
    );
    assert_eq!(
        text_of(&beta.expect("beta completes")),
        "plan-beta-5 to prod"
    );
    assert_eq!(effects.count("plan"), 2);
    assert_eq!(effects.count("after"), 2);
    session.close().await;
}

// ---- the same handler, two builds: the carried layout changed between them ----

mod build_one {
    use super::*;

    pub struct Evolving {
        pub effects: Effects,
    }

    #[tool_router(vis = "pub")]
    impl Evolving {
        #[mrtr_tool]
        #[tool(description = "carries a number across the ask")]
        async fn evolving(
            &self,
            Parameters(args): Parameters<Args>,
        ) -> Result<CallToolResult, ErrorData> {
            let carried = args.replicas * 10;
            self.effects.record("before");
            let target = ask!(target_env: elicit::<Target>("Where?"));
            let target = match target {
                Answer::Accept(target) => target.environment,
                Answer::Decline | Answer::Cancel => "nowhere".to_owned(),
            };
            Ok(reply(format!("{carried} {target}")))
        }
    }
}

mod build_two {
    use super::*;

    pub struct Evolving {
        pub effects: Effects,
    }

    #[tool_router(vis = "pub")]
    impl Evolving {
        #[mrtr_tool]
        #[tool(description = "now carries a wider number, scaled differently, across the same ask")]
        async fn evolving(
            &self,
            Parameters(args): Parameters<Args>,
        ) -> Result<CallToolResult, ErrorData> {
            // Same wire encoding as build one's u32, so only the layout fingerprint tells them apart.
            let carried = u64::from(args.replicas) * 100;
            self.effects.record("before");
            let target = ask!(target_env: elicit::<Target>("Where?"));
            let target = match target {
                Answer::Accept(target) => target.environment,
                Answer::Decline | Answer::Cancel => "nowhere".to_owned(),
            };
            Ok(reply(format!("{carried} {target}")))
        }
    }
}

mod build_three {
    use super::*;

    pub struct Evolving {
        pub effects: Effects,
    }

    #[tool_router(vis = "pub")]
    impl Evolving {
        #[mrtr_tool]
        #[tool(description = "the ask's key was renamed, so its step has another name")]
        async fn evolving(
            &self,
            Parameters(args): Parameters<Args>,
        ) -> Result<CallToolResult, ErrorData> {
            let carried = args.replicas * 10;
            self.effects.record("before");
            let target = ask!(environment: elicit::<Target>("Where?"));
            let target = match target {
                Answer::Accept(target) => target.environment,
                Answer::Decline | Answer::Cancel => "nowhere".to_owned(),
            };
            Ok(reply(format!("{carried} {target}")))
        }
    }
}

#[tokio::test]
async fn token_naming_a_step_this_build_does_not_have_is_rejected_with_invalid_params() {
    let old = connect(
        TestServer::new(
            build_one::Evolving {
                effects: Effects::default(),
            },
            build_one::Evolving::tool_router(),
            test_runtime("evolving"),
        ),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(old.round("evolving", args(), None, None).await);
    let token = first.request_state.expect("requestState");
    old.close().await;

    let effects = Effects::default();
    let renamed = connect(
        TestServer::new(
            build_three::Evolving {
                effects: effects.clone(),
            },
            build_three::Evolving::tool_router(),
            test_runtime("evolving"),
        ),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    assert_rejected(
        renamed
            .round("evolving", args(), Some(staging()), Some(token))
            .await,
        "step renamed",
    );
    assert!(effects.all().is_empty(), "no user code ran");
    renamed.close().await;
}

#[tokio::test]
async fn token_from_a_build_with_another_step_layout_is_rejected_with_invalid_params() {
    let one = |effects: Effects| {
        TestServer::new(
            build_one::Evolving { effects },
            build_one::Evolving::tool_router(),
            test_runtime("evolving"),
        )
    };
    let two = |effects: Effects| {
        TestServer::new(
            build_two::Evolving { effects },
            build_two::Evolving::tool_router(),
            test_runtime("evolving"),
        )
    };
    let old = connect(
        one(Effects::default()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(old.round("evolving", args(), None, None).await);
    let token = first
        .request_state
        .expect("a suspended call carries requestState");
    old.close().await;

    let same_build = connect(
        one(Effects::default()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let done = expect_complete(
        same_build
            .round("evolving", args(), Some(staging()), Some(token.clone()))
            .await,
    );
    assert_eq!(
        text_of(&done),
        "20 staging",
        "the control: the same build resumes the token"
    );
    same_build.close().await;

    let effects = Effects::default();
    let new_build = connect(
        two(effects.clone()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    assert_rejected(
        new_build
            .round("evolving", args(), Some(staging()), Some(token))
            .await,
        "layout changed",
    );
    assert!(effects.all().is_empty());
    new_build.close().await;
}
