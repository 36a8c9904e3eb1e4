//! Legacy-versus-MRTR equivalence, explored with proptest: for many answer scripts, the legacy
//! run and the 2026-07-28 run of one call must end with the same result and leave the same effect
//! log.
//!
//! A script gives each ask key, in the order keys are first asked, one [`Choice`]: accept (form
//! content generated from the request's `requestedSchema` by [`content_for`], a sampled text, a
//! root), decline or cancel (elicitations only: a legacy client refuses sampling and roots with
//! an error, which a 2026-07-28 client has no way to send). A failing script shrinks towards
//! fewer keys, accepts before declines, and seed 0 (the simplest content), and the panic shows
//! the minimal script with both runs.
//!
//! [`content_for`]: super::content_for

use std::fmt;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use rmcp::service::{RoleServer, Service};
use serde_json::Value;

use super::client::{Caps, ELICIT, Reply, ScriptedClient, lock};
use super::received::Received;
use super::run::{Both, run, run_fresh};
use super::schema_values::generated_reply;
use super::server::Effects;
use super::session::Era;

/// How one ask key is answered in a generated script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Accept with the answer generated from this seed (0: the simplest).
    Accept(u64),
    /// Decline (elicitations; other asks accept instead).
    Decline,
    /// Cancel (elicitations; other asks accept instead).
    Cancel,
}

/// Explores answer scripts for `tool` called with `arguments` against servers built by `make`,
/// and panics with the minimal script whose legacy and 2026-07-28 runs differ.
///
/// ```no_run
/// # async fn example<H: rmcp::Service<rmcp::RoleServer>>(make: impl Fn(mrtr::testing::Effects) -> H + Send + Sync + 'static) {
/// mrtr::testing::equivalent(make, "deploy_service", serde_json::json!({ "service": "api" }))
///     .run()
///     .await;
/// # }
/// ```
pub fn equivalent<H, F>(make: F, tool: &str, arguments: Value) -> Equivalent<F>
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H + Send + Sync + 'static,
{
    Equivalent {
        make,
        tool: tool.to_owned(),
        arguments,
        caps: Caps::ALL,
        cases: 64,
        max_keys: 6,
        fresh_rounds: false,
    }
}

/// An equivalence check, ready to [`run`](Self::run).
pub struct Equivalent<F> {
    make: F,
    tool: String,
    arguments: Value,
    caps: Caps,
    cases: u32,
    max_keys: usize,
    fresh_rounds: bool,
}

impl<H, F> Equivalent<F>
where
    H: Service<RoleServer>,
    F: Fn(Effects) -> H + Send + Sync + 'static,
{
    /// The capabilities the client declares (default: all).
    pub fn caps(mut self, caps: Caps) -> Self {
        self.caps = caps;
        self
    }

    /// How many scripts to try (default 64).
    pub fn cases(mut self, cases: u32) -> Self {
        self.cases = cases;
        self
    }

    /// The most distinct choices a script holds (default 6); further keys reuse them in turn.
    pub fn max_keys(mut self, max_keys: usize) -> Self {
        self.max_keys = max_keys.max(1);
        self
    }

    /// Runs every 2026-07-28 round on a freshly constructed server ([`run_fresh`]).
    pub fn fresh_server_per_round(mut self) -> Self {
        self.fresh_rounds = true;
        self
    }

    /// Runs the exploration (deterministically seeded, so CI runs are reproducible); panics with
    /// the minimal differing script.
    pub async fn run(self) {
        let outcome = tokio::task::spawn_blocking(move || self.explore())
            .await
            .expect("the exploration thread does not panic on its own");
        if let Err(failure) = outcome {
            panic!("{failure}");
        }
    }

    fn explore(self) -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start a runtime for the exploration: {error}"))?;
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        let choice = prop_oneof![
            any::<u64>().prop_map(Choice::Accept),
            Just(Choice::Decline),
            Just(Choice::Cancel)
        ];
        let scripts = proptest::collection::vec(choice, 1..=self.max_keys);
        let result = runner.run(&scripts, |choices| {
            let both = runtime.block_on(self.both(&choices));
            let same = both.modern.outcome() == both.legacy.outcome()
                && both.modern.effects == both.legacy.effects;
            if same {
                Ok(())
            } else {
                Err(TestCaseError::fail(Difference(&both).to_string()))
            }
        });
        match result {
            Ok(()) => Ok(()),
            Err(TestError::Fail(why, choices)) => Err(format!(
                "`{}`: legacy and 2026-07-28 differ; minimal script (choices per key, in order of first ask) {choices:?}\n{why}",
                self.tool
            )),
            Err(TestError::Abort(why)) => {
                Err(format!("`{}`: exploration aborted: {why}", self.tool))
            }
        }
    }

    async fn both(&self, choices: &[Choice]) -> Both {
        // One script for both eras: a key takes the same choice whichever era asks it.
        let script = Arc::new(Script::new(choices));
        let client = |script: Arc<Script>| {
            ScriptedClient::new(self.caps).otherwise(move |request| script.reply(request))
        };
        let modern_client = client(script.clone());
        let modern = if self.fresh_rounds {
            run_fresh(
                &self.make,
                modern_client,
                &self.tool,
                self.arguments.clone(),
            )
            .await
        } else {
            run(
                Era::Modern,
                &self.make,
                modern_client,
                &self.tool,
                self.arguments.clone(),
            )
            .await
        };
        let legacy_client = client(script).legacy_order_from(&modern.received);
        let legacy = run(
            Era::Legacy,
            &self.make,
            legacy_client,
            &self.tool,
            self.arguments.clone(),
        )
        .await;
        Both { modern, legacy }
    }
}

/// One generated script: the choices, handed to ask keys in the order they are first asked.
struct Script {
    choices: Vec<Choice>,
    keys: Mutex<Vec<String>>,
}

impl Script {
    fn new(choices: &[Choice]) -> Self {
        Script {
            choices: choices.to_vec(),
            keys: Mutex::default(),
        }
    }

    fn reply(&self, request: &Received) -> Reply {
        let index = {
            let mut keys = lock(&self.keys);
            // A live request the client could not name is its own key: the n-th unnamed ask.
            let key = request
                .ask_key
                .clone()
                .unwrap_or_else(|| format!("?{}", keys.len()));
            match keys.iter().position(|known| *known == key) {
                Some(index) => index,
                None => {
                    keys.push(key);
                    keys.len() - 1
                }
            }
        };
        match self.choices[index % self.choices.len()] {
            Choice::Accept(seed) => generated_reply(request, seed),
            Choice::Decline if request.method == ELICIT => Reply::Decline,
            Choice::Cancel if request.method == ELICIT => Reply::Cancel,
            Choice::Decline | Choice::Cancel => generated_reply(request, 0),
        }
    }
}

/// Both runs side by side, for the failure message.
struct Difference<'a>(&'a Both);

impl fmt::Display for Difference<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for run in [&self.0.modern, &self.0.legacy] {
            writeln!(f, "{:?}: {}", run.era, run.outcome())?;
            writeln!(f, "  asked: {:?}", run.ask_keys())?;
            writeln!(f, "  effects: {:?}", run.effects)?;
        }
        Ok(())
    }
}
