//! Runs one case under one script in all three ways and compares what they observed.

use std::fmt::Write as _;

use futures::StreamExt as _;

use crate::program::reject::classify;
use crate::program::script::Script;

use super::case::{Case, Given, Observed, PlainCall};
use super::eras::{MakeServer, run_legacy, run_modern};
use super::reference::run_reference;

/// A disagreement: which case and script, a signature (which era differed in what, and the
/// shape of its error) that shrinking preserves, and the full report.
#[derive(Clone, Debug)]
pub struct Failure {
    pub case: &'static str,
    pub script: Script,
    pub signature: String,
    pub report: String,
}

/// How many runs of a batch are in flight at once: enough to hide the duplex round trips,
/// few enough that a 2-core machine is not oversubscribed.
const IN_FLIGHT: usize = 8;

pub async fn check_case<S: Send + Sync + 'static>(
    case: &'static Case,
    script: Script,
    make: MakeServer<S>,
    plain: PlainCall,
) -> Option<Failure> {
    let (reference, given) = run_reference(case, script, plain).await;
    let groups: Vec<usize> = reference.rounds.iter().map(Vec::len).collect();
    let modern = run_modern(case, script, make, reference.input_required).await;
    let legacy = run_legacy(case, script, make, &groups).await;
    let mut signature = Vec::new();
    for (era, observed) in [("modern", &modern), ("legacy", &legacy)] {
        let differs = differences(&reference, observed);
        if !differs.is_empty() {
            let outcome = if observed.outcome.starts_with("rpc error")
                || observed.outcome.starts_with("client error")
            {
                classify(&observed.outcome)
            } else {
                "a value".into()
            };
            signature.push(format!(
                "{era} differs in {} (ends with {outcome})",
                differs.join("+")
            ));
        }
    }
    if signature.is_empty() {
        return None;
    }
    let signature = signature.join("; ");
    Some(Failure {
        case: case.name,
        script,
        report: report(
            case,
            script,
            &given,
            &signature,
            [&reference, &modern, &legacy],
        ),
        signature,
    })
}

fn differences(reference: &Observed, observed: &Observed) -> Vec<&'static str> {
    let mut differs = Vec::new();
    if observed.outcome != reference.outcome {
        differs.push("result");
    }
    if observed.effects != reference.effects {
        differs.push("effects");
    }
    if observed.rounds != reference.rounds {
        differs.push("asks");
    }
    if observed.input_required != reference.input_required {
        differs.push("rounds");
    }
    if !observed.anomalies.is_empty() {
        differs.push("anomalies");
    }
    differs
}

fn report(
    case: &Case,
    script: Script,
    given: &[Given],
    signature: &str,
    runs: [&Observed; 3],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "=== {} under script {script:#x}: {signature}",
        case.name
    );
    let _ = writeln!(out, "arguments: {}", case.args);
    let _ = writeln!(out, "answers (key#nth → reply):");
    for g in given {
        let _ = writeln!(out, "    {}#{} → {:?}", g.key, g.nth, g.reply);
    }
    let _ = writeln!(out, "handler:\n{}", case.source);
    for (name, run) in ["reference", "2026-07-28 (fresh server per round)", "legacy"]
        .iter()
        .zip(runs)
    {
        let _ = writeln!(out, "--- {name}");
        let _ = writeln!(out, "    result:  {}", run.outcome);
        let _ = writeln!(out, "    effects: {:?}", run.effects);
        let _ = writeln!(out, "    rounds:  {}", run.input_required);
        for (i, round) in run.rounds.iter().enumerate() {
            let asks: Vec<String> = round.iter().map(|a| a.message.clone()).collect();
            let _ = writeln!(out, "      ask {i}: {asks:?}");
        }
        for anomaly in &run.anomalies {
            let _ = writeln!(out, "    anomaly: {anomaly}");
        }
    }
    out
}

/// What a batch run found: failures, and how many runs (case × script) agreed.
pub struct BatchRun {
    pub runs: usize,
    pub failures: Vec<Failure>,
}

/// Every case under every one of its scripts.
pub async fn check_batch<S: Send + Sync + 'static>(
    cases: &'static [Case],
    make: MakeServer<S>,
    plain: PlainCall,
) -> BatchRun {
    let runs: Vec<(&'static Case, Script)> = cases
        .iter()
        .flat_map(|c| c.scripts.iter().map(move |&s| (c, s)))
        .collect();
    let total = runs.len();
    let failures = futures::stream::iter(runs)
        .map(|(case, script)| check_case(case, script, make, plain))
        .buffer_unordered(IN_FLIGHT)
        .filter_map(|f| async move { f })
        .collect::<Vec<_>>()
        .await;
    BatchRun {
        runs: total,
        failures,
    }
}
