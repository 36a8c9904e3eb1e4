//! Part 1 of the CI batch: generated handlers (`build.rs`, from the checked-in seed), each run
//! as its plain `async fn` reference, on 2026-07-28 with a fresh server every round and on a
//! legacy session, under several answer scripts.

#[allow(warnings, clippy::all)]
mod batch {
    include!(concat!(env!("OUT_DIR"), "/batch_1.rs"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_handlers_agree_with_their_plain_async_body_on_both_eras() {
    mrtr_differential::drive::verdict::assert_agreement(batch::CASES, batch::server, batch::plain)
        .await;
}
