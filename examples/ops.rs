//! The pretend back end the seed guide's tools talk to: deploy plans, deployments and an
//! incident feed. Every call is written to an [`Ops`] log so tests can prove what ran, how
//! often, and in which order (the plan is built once; the deploy happens after the last answer).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mrtr::replay::IdempotencyKey;
use rmcp::ErrorData;
use serde::{Deserialize, Serialize};

use crate::ledger::{EFFECT_LEDGER_VAR, Ledger, Recorded};

/// Shared by every instance of a server (and by the tests that inspect it).
#[derive(Clone, Default)]
pub struct Ops {
    log: Arc<Mutex<Log>>,
    digests: Arc<Mutex<HashMap<String, String>>>,
    /// Where every effect is also appended, one line each (`MRTR_EFFECT_LOG`): the fleet
    /// harness counts effects per flow across instances and restarts from these files.
    effect_file: Option<Arc<Mutex<std::fs::File>>>,
    /// The effects made under an idempotency key, with their answers.
    ledger: Ledger,
    /// The key this handle's effects are made under ([`Ops::idempotent`]).
    key: Option<IdempotencyKey>,
}

/// The lines of what ran, oldest first: every line for a test, the latest for a server.
#[derive(Default)]
struct Log {
    lines: VecDeque<String>,
    /// Most lines kept; `None` keeps them all.
    keep: Option<usize>,
}

impl Log {
    fn push(&mut self, line: String) {
        if self.keep.is_some_and(|keep| self.lines.len() >= keep) {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

/// Lines a served back end keeps in memory: enough to look at recent activity in a debugger,
/// bounded so that a server running for days does not grow with every call.
pub const SERVED_LOG_LINES: usize = 1024;

/// How much longer than a `requestState` lives a served ledger remembers its key: the clocks of
/// a fleet's instances may disagree by this much on when a state expires.
pub const CLOCK_DRIFT: Duration = Duration::from_secs(60);

/// Names the file [`Ops::from_env`] appends every effect to.
pub const EFFECT_LOG_VAR: &str = "MRTR_EFFECT_LOG";

/// A prepared deployment. Carried across the environment question, so it is serializable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeployPlan {
    pub id: String,
    pub digest: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Incident {
    pub id: String,
    pub service: String,
    pub severity: String,
    pub title: String,
}

impl Ops {
    /// A back end for tests: it keeps every line and every key, for the test to inspect.
    pub fn new() -> Self {
        Self::default()
    }

    /// A back end for a long-running server whose continuations live `state_ttl`: the log keeps
    /// the last [`SERVED_LOG_LINES`] lines, and the ledger forgets a key once no state naming
    /// it can open any more (`state_ttl` plus [`CLOCK_DRIFT`]).
    pub fn served(state_ttl: Duration) -> Self {
        Ops {
            log: Arc::new(Mutex::new(Log {
                lines: VecDeque::new(),
                keep: Some(SERVED_LOG_LINES),
            })),
            ledger: Ledger::forgetting(state_ttl + CLOCK_DRIFT),
            ..Self::default()
        }
    }

    /// [`Ops::served`], also appending every effect to the file named by `MRTR_EFFECT_LOG` and
    /// recording keyed effects in the directory named by `MRTR_EFFECT_LEDGER`.
    pub fn from_env(state_ttl: Duration) -> std::io::Result<Self> {
        let mut ops = Self::served(state_ttl);
        if let Some(path) = std::env::var_os(EFFECT_LOG_VAR) {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            ops.effect_file = Some(Arc::new(Mutex::new(file)));
        }
        if let Some(dir) = std::env::var_os(EFFECT_LEDGER_VAR) {
            ops.ledger = Ledger::shared(dir)?;
        }
        Ok(ops)
    }

    /// This back end with its effects (`run_deploy`, `publish_notes`, `record_summary`) made
    /// under `key`, as a real API takes an `Idempotency-Key` header: the first call with a key
    /// performs the effect, a later one with the same key gets the first one's answer and
    /// performs nothing. Handlers pass their `mrtr::StepKey` (`None` on a first round or a
    /// legacy session, where no round runs twice).
    pub fn idempotent(&self, key: Option<IdempotencyKey>) -> Ops {
        Ops {
            key,
            ..self.clone()
        }
    }

    /// Performs the effect `line` whose answer is `answer`, once per key: a key seen before
    /// gets its first answer back.
    fn effect(&self, line: String, answer: String) -> Result<String, ErrorData> {
        let Some(key) = self.key else {
            self.record(line);
            return Ok(answer);
        };
        let recorded = self.ledger.record_once(key, &line, &answer).map_err(|e| {
            ErrorData::internal_error(format!("the effect ledger failed: {e}"), None)
        })?;
        match recorded {
            // A shared ledger's file is the effect's record; the local log is for tests.
            Recorded::Now if matches!(self.ledger, Ledger::Shared(_)) => {
                self.lock_log().push(line);
                Ok(answer)
            }
            Recorded::Now => {
                self.record(line);
                Ok(answer)
            }
            Recorded::Before(answer) => {
                // Not an effect: a note that the key absorbed a second run (the fleet harness
                // counts them).
                self.record(format!("already {line}"));
                Ok(answer)
            }
        }
    }

    /// Everything that ran, in order (for a served back end, the latest lines).
    pub fn log(&self) -> Vec<String> {
        self.lock_log().lines.iter().cloned().collect()
    }

    /// How many log lines start with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.lock_log()
            .lines
            .iter()
            .filter(|line| line.starts_with(prefix))
            .count()
    }

    fn lock_log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, line: String) {
        if let Some(file) = &self.effect_file {
            use std::io::Write as _;
            // One write per line, unbuffered: the line is on disk before the response leaves,
            // so a SIGKILL cannot hide an effect that ran.
            let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Err(error) = file.write_all(format!("{line}\n").as_bytes()) {
                tracing::error!(%error, "cannot append to the effect log");
            }
        }
        self.lock_log().push(line);
    }

    /// The expensive part of a deploy: done once, whatever the number of rounds.
    pub async fn build_deploy_plan(&self, service: &str) -> Result<DeployPlan, ErrorData> {
        if service.trim().is_empty() {
            return Err(ErrorData::invalid_params("service must not be empty", None));
        }
        let digest = format!("{:016x}", fnv(service.as_bytes()));
        let plan = DeployPlan {
            id: format!("plan-{service}-{}", &digest[..6]),
            digest,
        };
        self.record(format!("build_plan {service} {}", plan.id));
        Ok(plan)
    }

    /// The side effect: must run strictly after the last answer, and once (once per key under
    /// [`Ops::idempotent`]).
    pub async fn run_deploy(
        &self,
        service: &str,
        environment: &str,
        plan_id: &str,
    ) -> Result<String, ErrorData> {
        self.effect(
            format!("deploy {service} {environment} {plan_id}"),
            format!("https://{environment}.example.invalid/{service}"),
        )
    }

    /// One wave of a staged rollout: after that wave's confirmation, once.
    pub async fn run_wave(
        &self,
        service: &str,
        wave: &str,
        plan_id: &str,
    ) -> Result<(), ErrorData> {
        self.record(format!("wave {service} {wave} {plan_id}"));
        Ok(())
    }

    pub async fn fetch_incidents(&self, since: &str) -> Result<Vec<Incident>, ErrorData> {
        self.record(format!("fetch_incidents {since}"));
        if since
            .as_bytes()
            .first()
            .is_some_and(|b| !b.is_ascii_digit())
        {
            return Err(ErrorData::invalid_params(
                "since must be an ISO date like 2026-11-01",
                None,
            ));
        }
        // The feed is empty for windows starting in the future of our fixture data.
        if since > "2026-12" {
            return Ok(Vec::new());
        }
        Ok(vec![
            incident("INC-101", "checkout-api", "sev2", "Elevated 5xx on /pay"),
            incident("INC-102", "search", "sev3", "Slow autocomplete in eu-west"),
            incident(
                "INC-103",
                "checkout-api",
                "sev1",
                "Card authorisations failing",
            ),
        ])
    }

    /// Stores a digest and returns the key it can be found under again: a continuation carries
    /// this key, not the digest.
    pub fn cache_digest(&self, digest: &str) -> String {
        let key = format!("digest-{:016x}", fnv(digest.as_bytes()));
        self.digests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), digest.to_owned());
        key
    }

    /// A digest stored by [`Ops::cache_digest`].
    pub fn cached_digest(&self, key: &str) -> Option<String> {
        self.digests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned()
    }

    pub async fn record_summary(&self, digest_key: &str, summary: &str) -> Result<(), ErrorData> {
        self.effect(
            format!(
                "record_summary {digest_key} {} chars",
                summary.chars().count()
            ),
            String::new(),
        )
        .map(drop)
    }
}

impl Ops {
    /// What changed since the previous release: gathered once per call.
    pub async fn collect_changes(&self, version: &str) -> Result<Vec<String>, ErrorData> {
        if version.trim().is_empty() {
            return Err(ErrorData::invalid_params("version must not be empty", None));
        }
        self.record(format!("collect_changes {version}"));
        Ok(vec![
            "checkout-api: retries card authorisations once on timeout".to_owned(),
            "search: autocomplete served from the regional cache".to_owned(),
            "deps: tokio 1.54".to_owned(),
        ])
    }

    /// The side effect of `release_notes`: after both answers, once.
    pub async fn publish_notes(
        &self,
        version: &str,
        audience: &str,
        body: &str,
    ) -> Result<String, ErrorData> {
        self.effect(
            format!(
                "publish_notes {version} {audience} {} chars",
                body.chars().count()
            ),
            format!("https://releases.example.invalid/{version}/{audience}"),
        )
    }
}

/// The waves of `staged_rollout`, in order: one confirmation each.
pub fn rollout_waves() -> Vec<String> {
    ["canary", "25%", "50%", "100%"].map(String::from).to_vec()
}

/// What `staged_rollout` answers when every wave was confirmed.
pub fn rollout_done(service: &str, done: &[String]) -> String {
    format!(
        "Rolled {service} out in {} waves: {}",
        done.len(),
        done.join(", ")
    )
}

/// What `staged_rollout` answers when a wave was not confirmed.
pub fn rollout_stopped(service: &str, wave: &str, done: &[String]) -> String {
    format!(
        "Rollout of {service} stopped before {wave} after {} waves.",
        done.len()
    )
}

/// What `staged_rollout` answers a client that cannot show a form.
pub fn cannot_confirm_waves(service: &str) -> String {
    format!(
        "This client cannot show a confirmation form. Confirm each wave of the \"{service}\" \
         rollout with the user, then roll it out by hand."
    )
}

fn incident(id: &str, service: &str, severity: &str, title: &str) -> Incident {
    Incident {
        id: id.into(),
        service: service.into(),
        severity: severity.into(),
        title: title.into(),
    }
}

/// One line per incident, most severe first: what the model is asked to summarise, and what a
/// client without sampling gets back instead.
pub fn render_incident_digest(incidents: &[Incident]) -> String {
    let mut sorted: Vec<&Incident> = incidents.iter().collect();
    sorted.sort_by(|a, b| a.severity.cmp(&b.severity).then(a.id.cmp(&b.id)));
    sorted
        .iter()
        .map(|i| format!("{} [{}] {}: {}", i.id, i.severity, i.service, i.title))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_log_keeps_the_latest_lines_and_a_test_log_keeps_all() {
        let served = Ops::served(Duration::from_secs(1));
        let test = Ops::new();
        for n in 0..SERVED_LOG_LINES + 10 {
            served.record(format!("line {n}"));
            test.record(format!("line {n}"));
        }
        let kept = served.log();
        assert_eq!(kept.len(), SERVED_LOG_LINES);
        assert_eq!(kept.first().map(String::as_str), Some("line 10"));
        assert_eq!(
            kept.last().map(String::as_str),
            Some(format!("line {}", SERVED_LOG_LINES + 9).as_str())
        );
        assert_eq!(test.log().len(), SERVED_LOG_LINES + 10);
        assert_eq!(
            test.count("line 1"),
            1 + 10 + 100 + (SERVED_LOG_LINES + 10 - 1000)
        );
    }
}
