//! The ported `release_notes` tool: an elicitation and a sampling request in the same round, each
//! answer handled on its own, in both eras.

use mrtr::testing::{Caps, Reply, ScriptedClient, accept, text};
use mrtr::testing::{ERAS, Era, connect, expect_complete, expect_input_required, text_of};
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::release_notes::Releaser;
use serde_json::{Value, json};

mod support;

fn install_runtime() {
    support::install_runtime("release-notes");
}

fn args() -> Value {
    json!({ "version": "4.2.0" })
}

const FORM_AND_SAMPLING: Caps = Caps {
    elicitation_form: true,
    sampling: true,
    ..Caps::NONE
};

fn client(audience: Reply, draft: Reply) -> ScriptedClient {
    ScriptedClient::new(FORM_AND_SAMPLING)
        .on_elicit("who are they for", [audience])
        .on_sample("checkout-api", [draft])
}

#[tokio::test]
async fn both_answers_are_used_and_the_notes_are_published_once() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let client = client(
            accept(json!({ "readers": "customers" })),
            text("Checkout is more reliable."),
        );
        let session = connect(Releaser::new(ops.clone()), client, era).await;
        let result = session
            .call("release_notes", args())
            .await
            .expect("completes");
        let body = text_of(&result);
        assert!(
            body.starts_with("Published release notes for 4.2.0 (customers)"),
            "{era:?}: {body}"
        );
        assert!(
            body.ends_with("Checkout is more reliable."),
            "{era:?}: {body}"
        );
        assert_eq!(ops.count("collect_changes"), 1, "{era:?}");
        assert_eq!(ops.count("publish_notes 4.2.0 customers"), 1, "{era:?}");
        assert_eq!(
            session.client.received().len(),
            2,
            "{era:?}: one form and one draft"
        );
        session.close().await;
    }
}

#[tokio::test]
async fn a_cancelled_form_beside_an_accepted_draft_is_handled_per_key() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let session = connect(
            Releaser::new(ops.clone()),
            client(Reply::Cancel, text("Drafted.")),
            era,
        )
        .await;
        let body = text_of(
            &session
                .call("release_notes", args())
                .await
                .expect("completes"),
        );
        assert!(
            body.starts_with("Published release notes for 4.2.0 (engineers)"),
            "{era:?}: {body}"
        );
        assert!(
            body.ends_with("Drafted."),
            "{era:?}: the accepted draft is kept"
        );
        assert_eq!(ops.count("publish_notes"), 1);
        session.close().await;
    }
}

#[tokio::test]
async fn both_asks_go_out_in_one_round_and_a_partial_answer_re_asks_only_the_missing_key() {
    install_runtime();
    let ops = Ops::new();
    let session = connect(
        Releaser::new(ops.clone()),
        ScriptedClient::new(FORM_AND_SAMPLING),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(session.round("release_notes", args(), None, None).await);
    let keys: Vec<String> = first
        .input_requests
        .as_ref()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["audience", "draft"]);

    // Only the form is answered: the next round asks for the draft alone, and the form's answer
    // travels in the sealed state instead of being asked again.
    let form = json!({ "audience": { "action": "accept", "content": { "readers": "customers" } } });
    let second = expect_input_required(
        session
            .round(
                "release_notes",
                args(),
                Some(form),
                first.request_state.clone(),
            )
            .await,
    );
    let keys: Vec<String> = second
        .input_requests
        .as_ref()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["draft"]);
    assert_eq!(ops.count("publish_notes"), 0);

    let draft = json!({ "draft": { "role": "assistant", "content": { "type": "text", "text": "Shipped." }, "model": "m" } });
    let done = expect_complete(
        session
            .round(
                "release_notes",
                args(),
                Some(draft),
                second.request_state.clone(),
            )
            .await,
    );
    assert!(text_of(&done).starts_with("Published release notes for 4.2.0 (customers)"));
    assert_eq!(
        ops.count("collect_changes"),
        1,
        "collected once across three rounds"
    );
    assert_eq!(ops.count("publish_notes"), 1);
    session.close().await;
}

#[tokio::test]
async fn without_a_form_or_a_model_the_plain_list_is_published() {
    install_runtime();
    for era in ERAS {
        let ops = Ops::new();
        let session = connect(
            Releaser::new(ops.clone()),
            ScriptedClient::new(Caps::FORM_ONLY),
            era,
        )
        .await;
        let body = text_of(
            &session
                .call("release_notes", args())
                .await
                .expect("completes"),
        );
        assert!(body.contains("- checkout-api: retries"), "{era:?}: {body}");
        assert!(
            session.client.received().is_empty(),
            "{era:?}: nothing asked without sampling"
        );
        session.close().await;
    }
}
