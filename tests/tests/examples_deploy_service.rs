//! The ported `deploy_service` and `summarize_incidents` tools, driven by rmcp's own client over an
//! in-memory duplex in both eras: final results, rounds, decline/cancel paths, capability
//! fallbacks, and that the plan is built once and the deploy runs once, after the last answer.

use mrtr::testing::{
    Caps, Effects, Reply, ScriptedClient, Verdict, accept, equivalent, hostile, run, run_both,
    run_fresh, text,
};
use mrtr::testing::{ERAS, Era, connect, expect_complete, expect_input_required, text_of};
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use serde_json::{Value, json};

mod support;

fn install_runtime() {
    support::install_runtime("deploy-service");
}

fn args() -> Value {
    json!({ "service": "checkout-api" })
}

fn picks(reply: Reply) -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY).on_elicit("which environment", [reply])
}

/// The factory the kit builds a server from: a fresh `Deployer` over a fresh back end whose log
/// is the test's effect log.
fn deployer(effects: Effects) -> Deployer {
    let ops = Ops::new();
    let log = ops.clone();
    effects.watch(move || log.log());
    Deployer::new(ops)
}

fn staging() -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY).accept("target_env", json!({ "environment": "staging" }))
}

#[tokio::test]
async fn deploy_asks_for_the_environment_and_deploys_once_after_the_answer_in_both_eras() {
    let both = run_both(deployer, staging(), "deploy_service", args()).await;
    let deployed = "Deployed checkout-api to staging: https://staging.example.invalid/checkout-api";
    both.assert_table(deployed, 1, 1);
    both.modern.assert_asked_keys(&[&["target_env"]]);
    assert_eq!(
        both.legacy.ask_keys(),
        ["target_env"],
        "the live request is named"
    );
    let log = &both.legacy.effects;
    assert!(
        log.len() == 2
            && log[0].starts_with("build_plan")
            && log[1].starts_with("deploy checkout-api staging"),
        "the plan is built once, the deploy runs once, after the answer: {log:?}"
    );
}

#[tokio::test]
async fn deploy_keeps_nothing_in_memory_between_rounds() {
    let fresh = run_fresh(deployer, staging(), "deploy_service", args()).await;
    let same_server = run(Era::Modern, deployer, staging(), "deploy_service", args()).await;
    fresh
        .assert_outcome(&same_server.outcome())
        .assert_rounds(1)
        .assert_asked_keys(&[&["target_env"]]);
    assert_eq!(fresh.effects, same_server.effects);
}

#[tokio::test]
async fn deploy_service_keeps_every_promise_under_the_hostile_suite() {
    let report = hostile(deployer, "deploy_service", args())
        .cross_tool("summarize_incidents", json!({ "since": "2026-11-01" }))
        .run()
        .await;
    report.assert_ok();
    let skipped = report
        .cases
        .iter()
        .filter(|case| matches!(case.verdict, Verdict::Skipped(_)))
        .count();
    assert_eq!(skipped, 0, "{report}");
    for family in [
        "control",
        "tamper",
        "truncation",
        "suffix",
        "cross-tool",
        "cross-arguments",
        "cross-principal",
        "cross-service",
        "expired",
        "oversize",
        "malformed-answer",
        "missing-answer",
        "junk-key",
        "capability-missing",
    ] {
        assert!(
            report
                .cases
                .iter()
                .any(|case| case.name.starts_with(family)),
            "no `{family}` case ran: {report}"
        );
    }
}

#[tokio::test]
async fn both_tools_end_the_same_way_on_both_eras_for_every_explored_script() {
    equivalent(deployer, "deploy_service", args()).run().await;
    let since = json!({ "since": "2026-11-01" });
    equivalent(deployer, "summarize_incidents", since)
        .run()
        .await;
}

#[tokio::test]
async fn decline_and_cancel_are_distinct_and_deploy_nothing() {
    install_runtime();
    for era in ERAS {
        for (reply, expected) in [
            (Reply::Decline, "Deployment declined by user."),
            (Reply::Cancel, "Deployment cancelled by user."),
        ] {
            let ops = Ops::new();
            let session = connect(Deployer::new(ops.clone()), picks(reply), era).await;
            let result = session
                .call("deploy_service", args())
                .await
                .expect("the call completes");
            assert_eq!(text_of(&result), expected, "{era:?}");
            assert_eq!(
                ops.count("deploy"),
                0,
                "{era:?}: a dismissed dialog is not consent"
            );
            session.close().await;
        }
    }
}

#[tokio::test]
async fn an_environment_outside_the_choices_is_asked_again_without_rebuilding_the_plan() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
            "which environment",
            [
                accept(json!({ "environment": "qa" })),
                accept(json!({ "environment": "production" })),
            ],
        );
        let session = connect(Deployer::new(ops.clone()), client, era).await;
        let result = session
            .call("deploy_service", args())
            .await
            .expect("the call completes");
        assert!(
            text_of(&result).starts_with("Deployed checkout-api to production"),
            "{era:?}"
        );
        assert_eq!(
            session.client.asked("which environment"),
            2,
            "{era:?}: asked again"
        );
        assert_eq!(ops.count("build_plan"), 1, "{era:?}");
        assert_eq!(ops.count("deploy"), 1, "{era:?}");
        session.close().await;
    }
}

#[tokio::test]
async fn a_client_that_cannot_elicit_gets_the_fallback_and_no_form() {
    install_runtime();
    for era in ERAS {
        for caps in [
            Caps::NONE,
            Caps {
                sampling: true,
                ..Caps::NONE
            },
        ] {
            let ops = Ops::new();
            let session = connect(Deployer::new(ops.clone()), ScriptedClient::new(caps), era).await;
            let result = session
                .call("deploy_service", args())
                .await
                .expect("the call completes");
            assert!(
                text_of(&result).starts_with("This client cannot show a confirmation form"),
                "{era:?}"
            );
            assert!(
                session.client.received().is_empty(),
                "{era:?} {caps:?}: never sent an elicitation"
            );
            assert_eq!(ops.count("deploy"), 0);
            session.close().await;
        }
    }
}

#[tokio::test]
async fn the_modern_exchange_is_one_input_required_round_then_the_result() {
    install_runtime();
    let ops = Ops::new();
    let session = connect(
        Deployer::new(ops.clone()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(session.round("deploy_service", args(), None, None).await);
    let requests =
        serde_json::to_value(first.input_requests.as_ref().expect("input requests")).unwrap();
    assert_eq!(
        requests.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["target_env"]
    );
    assert_eq!(requests["target_env"]["method"], "elicitation/create");
    let schema = &requests["target_env"]["params"]["requestedSchema"];
    assert_eq!(
        schema["properties"]["environment"]["enum"],
        json!(["staging", "production"])
    );
    assert_eq!(schema["required"], json!(["environment"]));
    assert_eq!(ops.count("build_plan"), 1);
    assert_eq!(
        ops.count("deploy"),
        0,
        "nothing is deployed before the answer"
    );

    let answer =
        json!({ "target_env": { "action": "accept", "content": { "environment": "staging" } } });
    let last = expect_complete(
        session
            .round(
                "deploy_service",
                args(),
                Some(answer),
                first.request_state.clone(),
            )
            .await,
    );
    assert!(text_of(&last).starts_with("Deployed checkout-api to staging"));
    assert_eq!(
        ops.count("build_plan"),
        1,
        "the retry resumed after the ask instead of starting over"
    );
    assert_eq!(ops.count("deploy"), 1);
    session.close().await;
}

#[tokio::test]
async fn a_final_round_that_runs_twice_deploys_once_through_its_step_key() {
    install_runtime();
    let ops = Ops::new();
    let session = connect(
        Deployer::new(ops.clone()),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(session.round("deploy_service", args(), None, None).await);
    let answer =
        json!({ "target_env": { "action": "accept", "content": { "environment": "staging" } } });
    // This runtime has no replay guard, so the same token runs its round again: what a round
    // taken over after its instance died does under single use.
    for _ in 0..2 {
        let done = expect_complete(
            session
                .round(
                    "deploy_service",
                    args(),
                    Some(answer.clone()),
                    first.request_state.clone(),
                )
                .await,
        );
        assert_eq!(
            text_of(&done),
            "Deployed checkout-api to staging: https://staging.example.invalid/checkout-api"
        );
    }
    assert_eq!(ops.count("deploy "), 1, "the back end deployed once");
    assert_eq!(
        ops.count("already deploy "),
        1,
        "and answered the second run from its record"
    );
    session.close().await;
}

fn sampling_client(reply: Reply) -> ScriptedClient {
    ScriptedClient::new(Caps {
        sampling: true,
        ..Caps::NONE
    })
    .on_sample("INC-103", [reply])
}

#[tokio::test]
async fn summarize_incidents_samples_a_summary_and_records_it_once_in_both_eras() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let session = connect(
            Deployer::new(ops.clone()),
            sampling_client(text("- checkout is failing")),
            era,
        )
        .await;
        let result = session
            .call("summarize_incidents", json!({ "since": "2026-11-01" }))
            .await
            .expect("completes");
        assert_eq!(text_of(&result), "- checkout is failing", "{era:?}");
        assert_eq!(ops.count("fetch_incidents"), 1, "{era:?}: fetched once");
        assert_eq!(
            ops.count("record_summary digest-"),
            1,
            "{era:?}: recorded under the digest key"
        );
        session.close().await;
    }
}

#[tokio::test]
async fn summarize_incidents_without_sampling_returns_the_raw_digest() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let session = connect(
            Deployer::new(ops.clone()),
            ScriptedClient::new(Caps::FORM_ONLY),
            era,
        )
        .await;
        let result = session
            .call("summarize_incidents", json!({ "since": "2026-11-01" }))
            .await
            .expect("completes");
        let digest = text_of(&result);
        assert!(
            digest.starts_with("INC-103 [sev1] checkout-api"),
            "{era:?}: {digest}"
        );
        assert!(
            session.client.received().is_empty(),
            "{era:?}: nothing was asked"
        );
        session.close().await;
    }
}

#[tokio::test]
async fn a_failed_sampling_request_falls_back_to_the_raw_list() {
    install_runtime();
    // Legacy: the client fails the request, which is how a legacy client reports a refusal; the
    // handler sees `Answer::Decline`. Modern: a refusing client simply never answers; the raw
    // round below shows the server asking again rather than failing.
    let ops = Ops::new();
    let session = connect(
        Deployer::new(ops.clone()),
        sampling_client(Reply::Fail("user refused".into())),
        Era::Legacy,
    )
    .await;
    let result = session
        .call("summarize_incidents", json!({ "since": "2026-11-01" }))
        .await
        .expect("completes");
    assert_eq!(
        text_of(&result),
        "Summary not generated. The raw incident list is still available."
    );
    assert_eq!(ops.count("record_summary"), 0);
    session.close().await;

    let session = connect(
        Deployer::new(Ops::new()),
        sampling_client(text("unused")),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(
        session
            .round(
                "summarize_incidents",
                json!({ "since": "2026-11-01" }),
                None,
                None,
            )
            .await,
    );
    let again = expect_input_required(
        session
            .round(
                "summarize_incidents",
                json!({ "since": "2026-11-01" }),
                Some(json!({})),
                first.request_state.clone(),
            )
            .await,
    );
    assert_eq!(
        serde_json::to_value(again.input_requests.unwrap())
            .unwrap()
            .as_object()
            .unwrap()
            .len(),
        1
    );
    session.close().await;
}

#[test]
fn the_step_enums_beside_the_impl_name_each_resume_point_and_what_it_carries() {
    use mrtr_examples::servers::deploy_service::{DeployServiceStep, SummarizeIncidentsStep};

    assert_eq!(DeployServiceStep::ALL, [DeployServiceStep::AfterTargetEnv]);
    let step = DeployServiceStep::AfterTargetEnv;
    assert_eq!(step.name(), "AfterTargetEnv");
    assert_eq!(step.info().keys, ["target_env"]);
    assert_eq!(step.info().carried, ["plan"]);
    // The enum and the table the runtime resumes from are one and the same.
    assert_eq!(step.info().name, Deployer::DEPLOY_SERVICE_STEPS[0].name);

    let step = SummarizeIncidentsStep::AfterSummary;
    assert_eq!(SummarizeIncidentsStep::ALL, [step]);
    assert_eq!(step.info().keys, ["summary"]);
    // The cache key, not the digest it names, crosses the wire.
    assert_eq!(step.info().carried, ["digest_key"]);
}

#[test]
fn each_handler_lists_the_client_capabilities_its_asks_can_need() {
    assert_eq!(
        Deployer::DEPLOY_SERVICE_HANDLER.capabilities,
        ["elicitation.form"]
    );
    assert_eq!(
        Deployer::SUMMARIZE_INCIDENTS_HANDLER.capabilities,
        ["sampling"]
    );
    assert!(
        Deployer::DEPLOY_SERVICE_HANDLER
            .path
            .ends_with("::deploy_service")
    );
    assert_eq!(
        Deployer::DEPLOY_SERVICE_HANDLER.steps.len(),
        Deployer::DEPLOY_SERVICE_STEPS.len()
    );
}

/// The legacy original is a plain rmcp server, and must work against a real client: its typed
/// `Peer::elicit::<Target>` form used to be refused by rmcp itself (a `$ref` enum schema).
#[tokio::test]
async fn the_legacy_original_elicits_its_target_and_deploys() {
    use mrtr_examples::servers::legacy::deploy_service::Deployer as Legacy;
    let ops = Ops::new();
    let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
        "which environment",
        [accept(json!({ "environment": "staging" }))],
    );
    let session = connect(Legacy::new(ops.clone()), client.clone(), Era::Legacy).await;
    let result = session
        .call("deploy_service", json!({ "service": "checkout-api" }))
        .await
        .expect("the legacy call completes");
    assert!(
        text_of(&result).starts_with("Deployed checkout-api to staging"),
        "{}",
        text_of(&result)
    );
    assert_eq!(client.asked("which environment"), 1);
    assert_eq!(ops.count("deploy"), 1);
    session.close().await;
}

/// `staged_rollout` asks inside a `for` loop: one confirmation per wave, four waves, so five
/// rounds on 2026-07-28; each wave runs once, in order, after its own confirmation.
#[tokio::test]
async fn staged_rollout_confirms_every_wave_and_runs_each_once_in_order_in_both_eras() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let yes = || accept(json!({ "proceed": true }));
        let client =
            ScriptedClient::new(Caps::FORM_ONLY).on_elicit("out to", [yes(), yes(), yes(), yes()]);
        let session = connect(Deployer::new(ops.clone()), client, era).await;
        let result = session
            .call("staged_rollout", args())
            .await
            .expect("the call completes");
        assert_eq!(
            text_of(&result),
            "Rolled checkout-api out in 4 waves: canary, 25%, 50%, 100%",
            "{era:?}"
        );
        assert_eq!(session.client.asked("out to"), 4, "{era:?}");
        assert_eq!(ops.count("build_plan"), 1, "{era:?}");
        let waves: Vec<String> = ops
            .log()
            .into_iter()
            .filter(|line| line.starts_with("wave"))
            .collect();
        let plan = "plan-checkout-api-";
        assert_eq!(waves.len(), 4, "{era:?}: {waves:?}");
        for (line, wave) in waves.iter().zip(["canary", "25%", "50%", "100%"]) {
            assert!(
                line.starts_with(&format!("wave checkout-api {wave} {plan}")),
                "{era:?}: {waves:?}"
            );
        }
        session.close().await;
    }
}

#[tokio::test]
async fn a_wave_that_is_not_confirmed_stops_the_rollout_there() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let client = ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
            "out to",
            [accept(json!({ "proceed": true })), Reply::Decline],
        );
        let session = connect(Deployer::new(ops.clone()), client, era).await;
        let result = session
            .call("staged_rollout", args())
            .await
            .expect("the call completes");
        assert_eq!(
            text_of(&result),
            "Rollout of checkout-api stopped before 25% after 1 waves.",
            "{era:?}"
        );
        assert_eq!(ops.count("wave"), 1, "{era:?}");
        session.close().await;
    }
}
