//! Runs in the scratch crate `compiles.rs` builds (a module of it, `cfg(test)`): the tool's
//! ports of `examples/servers/legacy/` behave like the hand ports in `examples/servers/` on
//! both eras, with the same client script: same outcome, same effects, same rounds.

use mrtr::testing::{Caps, Effects, Reply, ScriptedClient, accept, run_both, text};
use serde_json::{Value, json};

use crate::hand;
use crate::ops::Ops;
use crate::ported::{deploy_service, release_notes};

fn install_runtime() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let key = mrtr::config::StateKey::new("k1", [7u8; 32]).expect("a 32-byte key");
        let config = mrtr::config::StateConfig::new("ported", mrtr::config::KeyRing::new(key));
        mrtr::Runtime::new(config).expect("valid configuration").install();
    });
}

fn watched(effects: &Effects) -> Ops {
    let ops = Ops::new();
    let log = ops.clone();
    effects.watch(move || log.log());
    ops
}

/// Runs `tool` on both eras against the hand port and the tool's port with the same client
/// script, and requires the same outcome, effects and rounds.
async fn same_behaviour<H1, H2>(
    hand: impl Fn(Effects) -> H1,
    tool_port: impl Fn(Effects) -> H2,
    client: &ScriptedClient,
    tool: &str,
    arguments: Value,
) -> String
where
    H1: rmcp::Service<rmcp::RoleServer>,
    H2: rmcp::Service<rmcp::RoleServer>,
{
    install_runtime();
    let by_hand = run_both(hand, client.replay(), tool, arguments.clone()).await;
    let by_tool = run_both(tool_port, client.replay(), tool, arguments).await;
    for (era, a, b) in [
        ("2026-07-28", &by_hand.modern, &by_tool.modern),
        ("legacy", &by_hand.legacy, &by_tool.legacy),
    ] {
        assert_eq!(a.outcome(), b.outcome(), "{tool} on {era}: outcome");
        assert_eq!(a.effects, b.effects, "{tool} on {era}: effects");
        assert_eq!(a.input_required(), b.input_required(), "{tool} on {era}: rounds");
    }
    by_tool.modern.outcome()
}

fn deployers() -> (
    impl Fn(Effects) -> hand::deploy_service::Deployer,
    impl Fn(Effects) -> deploy_service::Deployer,
) {
    (
        |e: Effects| hand::deploy_service::Deployer::new(watched(&e)),
        |e: Effects| deploy_service::Deployer::new(watched(&e)),
    )
}

#[tokio::test]
async fn deploy_service_ported_by_the_tool_behaves_like_the_hand_port() {
    let (hand, tool) = deployers();
    let args = json!({ "service": "checkout-api" });
    let forms = |reply: Reply| ScriptedClient::new(Caps::FORM_ONLY).on_elicit("which environment", [reply]);
    let mut outcomes = Vec::new();
    for client in [
        forms(accept(json!({ "environment": "staging" }))),
        forms(Reply::Decline),
        forms(Reply::Cancel),
        ScriptedClient::new(Caps::NONE),
    ] {
        outcomes.push(same_behaviour(&hand, &tool, &client, "deploy_service", args.clone()).await);
    }
    assert!(outcomes[0].starts_with("Deployed checkout-api to staging"), "{outcomes:?}");
    assert_eq!(outcomes[1], "Deployment declined by user.");
    assert_eq!(outcomes[2], "Deployment cancelled by user.");
    assert!(outcomes[3].starts_with("This client cannot show a confirmation form"));
}

#[tokio::test]
async fn staged_rollout_ported_by_the_tool_behaves_like_the_hand_port() {
    let (hand, tool) = deployers();
    let args = json!({ "service": "checkout-api" });
    let all = ScriptedClient::new(Caps::FORM_ONLY).otherwise(|_| accept(json!({ "proceed": true })));
    let stop_at_half = ScriptedClient::new(Caps::FORM_ONLY)
        .otherwise(|r| accept(json!({ "proceed": !r.text.contains("50%") })));
    let done = same_behaviour(&hand, &tool, &all, "staged_rollout", args.clone()).await;
    let stopped = same_behaviour(&hand, &tool, &stop_at_half, "staged_rollout", args).await;
    assert_ne!(done, stopped, "the scripts take different paths: {done} / {stopped}");
}

#[tokio::test]
async fn summarize_incidents_ported_by_the_tool_behaves_like_the_hand_port() {
    let (hand, tool) = deployers();
    let args = json!({ "since": "2026-11-01" });
    let sampling = Caps {
        sampling: true,
        ..Caps::NONE
    };
    for client in [
        ScriptedClient::new(sampling).on_sample("", [text("- one\n- two\n- three")]),
        ScriptedClient::new(sampling).on_sample("", [Reply::Fail("no model".into())]),
        ScriptedClient::new(Caps::NONE),
    ] {
        same_behaviour(&hand, &tool, &client, "summarize_incidents", args.clone()).await;
    }
}

#[tokio::test]
async fn release_notes_ported_by_the_tool_behaves_like_the_hand_port() {
    let hand = |e: Effects| hand::release_notes::Releaser::new(watched(&e));
    let tool = |e: Effects| release_notes::Releaser::new(watched(&e));
    let args = json!({ "version": "4.2.0" });
    let both = Caps {
        elicitation_form: true,
        sampling: true,
        ..Caps::NONE
    };
    let mut outcomes = Vec::new();
    for (audience, draft) in [
        (accept(json!({ "readers": "customers" })), text("Checkout is more reliable.")),
        (Reply::Decline, Reply::Fail("no model".into())),
        (Reply::Cancel, text("Faster.")),
    ] {
        let client = ScriptedClient::new(both)
            .on_elicit("who are they for", [audience])
            .on_sample("", [draft]);
        outcomes.push(same_behaviour(&hand, &tool, &client, "release_notes", args.clone()).await);
    }
    assert!(outcomes[0].starts_with("Published release notes"), "{outcomes:?}");
    assert!(outcomes[2].starts_with("Published release notes"), "{outcomes:?}");
}
