//! The behaviour-test harness: a scripted client, a recording server and a duplex session that
//! runs one server in either protocol era.
//!
//! A test builds its server from a `#[tool_router]` impl ([`TestServer`]), scripts a client
//! ([`ScriptedClient`]), connects them ([`connect`]) in [`Era::Modern`] or [`Era::Legacy`], and
//! then asserts on three records: the result, the server's [`Transcript`] (rounds and their
//! keys) and the handler's [`Effects`] (what user code ran, and how often).

pub mod client;
pub mod redis;
pub mod run;
pub mod runtime;
pub mod server;
pub mod session;

pub use client::{Caps, Received, Reply, ScriptedClient, accept, root_uris, text};
pub use redis::RedisServer;
pub use run::{Both, Run, run, run_both};
pub use runtime::{
    TEST_KEY, TestClock, guarded_runtime, runtime_with, single_use_runtime, test_runtime,
};
pub use server::{Effects, Outcome, Round, TestServer, Transcript};
pub use session::{
    ERAS, Era, Session, connect, expect_complete, expect_input_required, expect_rpc_error,
    expect_rpc_error_data, keys_of, params, requests_of, text_of,
};
