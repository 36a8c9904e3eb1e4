//! Test kit for ported tools (feature `testing`; add `mrtr = { .., features = ["testing"] }` to
//! your `[dev-dependencies]`).
//!
//! Everything runs in-process: your rmcp server on one end of a `tokio::io::duplex`, rmcp's real
//! client on the other, on either [`Era`]: [`Era::Modern`] (2026-07-28: `server/discover`,
//! `input_required` rounds, sealed `requestState`) or [`Era::Legacy`] (`initialize`: every ask is
//! a live server-to-client request). The client is a [`ScriptedClient`]: you script its answers
//! per ask key, or by the question's text, or with a closure.
//!
//! - [`run`] / [`run_both`] / [`run_fresh`]: one whole call in one era, in both, or on
//!   2026-07-28 with every round on a freshly constructed server; the [`Run`] holds the result,
//!   the rounds, the keys asked and the effect log, with assertions on each.
//! - [`connect`] and [`Session`]: a connected pair for tools, prompts and resources, whole calls
//!   or raw rounds ([`Session::round`]) for wire-level checks.
//! - [`hostile`]: every attack a client can make on a suspended call of one tool (tampered,
//!   truncated, foreign, expired, oversized states; malformed, missing, junk answers; missing
//!   capabilities), with a [`HostileReport`] that fails the test one line per broken case.
//! - [`equivalent`]: explores answer scripts with proptest and checks the legacy and 2026-07-28
//!   runs end the same and leave the same effect log; a failure shrinks to a minimal script.
//!
//! # The server factory and the effect log
//!
//! The kit builds your server itself, as often as it needs (one per run, or one per round), from
//! a factory `Fn(Effects) -> impl ServerHandler`. [`Effects`] is the effect log your test
//! supplies: have your handlers (or your fake back end) [`record`](Effects::record) what they
//! did, or [`watch`](Effects::watch) a log your server already keeps. Every server the kit builds
//! runs with the kit's own runtime ([`test_runtime`]: one fixed key, so a token sealed by one
//! instance opens on the next), whatever runtime your server would install.
//!
//! # Legacy sessions: naming a live request
//!
//! On 2026-07-28 each ask arrives with its key. On a legacy session it is a real
//! `elicitation/create`, `sampling/createMessage` or `roots/list` request, and the key is not on
//! the wire. The scripted client names it, in this order:
//!
//! 1. by message: [`ScriptedClient::legacy_message`]`("target_env", "which environment")` names
//!    every live request whose text contains the needle;
//! 2. by the order of asks of a 2026-07-28 run of the same call ([`run_both`] runs 2026-07-28
//!    first and hands its asks to the legacy client, [`ScriptedClient::legacy_order_from`]): the
//!    next unused ask of the same method with the same text, else the next unused ask of the
//!    same method;
//! 3. by elimination: if exactly one key is scripted with answers of the request's kind, that key.
//!
//! A request the client cannot name is answered only by text rules ([`ScriptedClient::on_elicit`]
//! ..) and otherwise fails with an error naming it. [`Received::ask_key`] shows the name given.
//!
//! # Example
//!
//! A ported tool, and the tests a user writes for it: both eras, fresh servers per round, the
//! hostile suite and legacy-versus-MRTR equivalence.
//!
//! ```
//! use mrtr::testing::{Caps, Effects, ScriptedClient, equivalent, hostile, run_both, run_fresh};
//! use mrtr::{Answer, ask, mrtr_tool};
//! use rmcp::handler::server::wrapper::Parameters;
//! use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
//! use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//!
//! #[derive(Serialize, Deserialize, mrtr::Elicit)]
//! struct Target {
//!     environment: String,
//! }
//!
//! #[derive(Deserialize, schemars::JsonSchema)]
//! struct DeployArgs {
//!     service: String,
//! }
//!
//! /// The server under test; its `effects` stand for the back end it drives.
//! struct Deployer {
//!     effects: Effects,
//! }
//!
//! #[tool_router]
//! impl Deployer {
//!     #[mrtr_tool]
//!     #[tool(description = "Deploy a service")]
//!     async fn deploy_service(
//!         &self,
//!         Parameters(args): Parameters<DeployArgs>,
//!     ) -> Result<CallToolResult, ErrorData> {
//!         self.effects.record(format!("plan {}", args.service));
//!         let target = ask!(target_env: elicit::<Target>(format!("Deploy {} where?", args.service)));
//!         let text = match target {
//!             Answer::Accept(target) => {
//!                 self.effects.record(format!("deploy {}", target.environment));
//!                 format!("deployed to {}", target.environment)
//!             }
//!             Answer::Decline | Answer::Cancel => "not deployed".to_owned(),
//!         };
//!         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
//!     }
//! }
//!
//! #[tool_handler]
//! impl ServerHandler for Deployer {
//!     fn get_info(&self) -> ServerConfig {
//!         ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // The factory: the kit builds a fresh server per run (or per round) around your effect log.
//! let server = |effects| Deployer { effects };
//! let args = json!({ "service": "api" });
//! let staging = ScriptedClient::new(Caps::FORM_ONLY)
//!     .accept("target_env", json!({ "environment": "staging" }));
//!
//! // Both eras end the same, with one input_required round on 2026-07-28 and one live
//! // elicitation on the legacy session, and leave the same effect log.
//! let both = run_both(server, staging.clone(), "deploy_service", args.clone()).await;
//! both.assert_table("deployed to staging", 1, 1);
//! both.modern
//!     .assert_asked_keys(&[&["target_env"]])
//!     .assert_effects(&["plan api", "deploy staging"]);
//!
//! // Every round on a freshly built server: the handler keeps nothing in memory.
//! run_fresh(server, staging, "deploy_service", args.clone())
//!     .await
//!     .assert_outcome("deployed to staging");
//!
//! // Every attack a client can make on the suspended call; one line per broken promise.
//! hostile(server, "deploy_service", args.clone()).run().await.assert_ok();
//!
//! // Legacy and 2026-07-28 agree for every explored answer script (proptest, shrinking).
//! equivalent(server, "deploy_service", args).run().await;
//! # }
//! ```
#![deny(missing_docs)]

pub mod client;
pub mod equivalent;
pub mod hostile;
mod legacy_names;
mod received;
pub mod run;
pub mod runtime;
pub mod schema_values;
pub mod server;
pub mod session;

pub use client::{Caps, Received, Reply, ScriptedClient, accept, base_key, root_uris, text};
pub use equivalent::{Choice, Equivalent, equivalent};
pub use hostile::{Case, Hostile, HostileReport, Verdict, hostile};
pub use run::{Both, KIT_AUDIENCE, MAX_ROUNDS, MakeClient, Run, run, run_both, run_fresh};
pub use runtime::{
    TEST_KEY, TestClock, guarded_runtime, runtime_with, single_use_runtime, test_runtime,
};
pub use schema_values::{content_for, generated_reply};
pub use server::{Effects, Outcome, Recorded, Round, TestServer, Transcript};
pub use session::{
    ERAS, Era, Session, connect, expect_complete, expect_input_required, expect_rpc_error,
    expect_rpc_error_data, keys_of, object, params, requests_of, text_of,
};
