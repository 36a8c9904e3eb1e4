//! `fleet-load`: drives complete multi-round flows (`deploy_service`, `summarize_incidents`,
//! `release_notes`) through a load balancer for a fixed time, a fixed number in flight, and
//! prints what the fleet harness (`scripts/fleet.sh`) reports. Kept-alive connections with
//! `TCP_NODELAY`.
//!
//! `fleet-load --url URL --flows N --seconds S --effects DIR`

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mrtr_fleet::flows::Kind;
use mrtr_fleet::{effects, flow, wire};

struct Args {
    url: String,
    flows: usize,
    seconds: u64,
    effects: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        url: String::new(),
        flows: 200,
        seconds: 60,
        effects: PathBuf::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => args.url = value,
            "--flows" => args.flows = value.parse().map_err(|e| format!("--flows: {e}"))?,
            "--seconds" => args.seconds = value.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--effects" => args.effects = PathBuf::from(value),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if args.url.is_empty() || args.effects.as_os_str().is_empty() || args.flows == 0 {
        return Err("usage: fleet-load --url URL --flows N --seconds S --effects DIR".into());
    }
    Ok(args)
}

#[derive(Default)]
struct Totals {
    started: Vec<(Kind, String)>,
    completed: Vec<(Kind, String)>,
    failures: Vec<String>,
    /// Latencies by round index (0 = first round), in microseconds.
    latencies: Vec<Vec<u64>>,
    resumed_elsewhere: u64,
    retried: u64,
    unanswered: Vec<String>,
    retried_store_unavailable: u64,
    retried_in_flight: u64,
    taken_over: u64,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("fleet-load: {error}");
            return ExitCode::from(2);
        }
    };
    let client = reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(args.flows)
        .build()
        .expect("an HTTP client");
    let totals = Arc::new(Mutex::new(Totals::default()));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let workers: Vec<_> = (0..args.flows)
        .map(|worker| {
            let client = client.clone();
            let url = args.url.clone();
            let totals = totals.clone();
            tokio::spawn(async move {
                let mut ids = 0u64;
                let mut n = 0usize;
                while Instant::now() < deadline {
                    let kind = Kind::ALL[(worker + n) % Kind::ALL.len()];
                    let flow_id = format!("{worker}-{n}");
                    n += 1;
                    let report = flow::run(&client, &url, kind, &flow_id, &mut ids).await;
                    let mut totals = totals.lock().unwrap_or_else(|p| p.into_inner());
                    totals.started.push((kind, flow_id.clone()));
                    for (index, elapsed) in &report.rounds {
                        if totals.latencies.len() <= *index {
                            totals.latencies.resize(index + 1, Vec::new());
                        }
                        totals.latencies[*index].push(elapsed.as_micros() as u64);
                    }
                    totals.resumed_elsewhere += u64::from(report.resumed_elsewhere);
                    totals.retried += u64::from(report.retried);
                    totals.unanswered.extend(report.unanswered);
                    totals.retried_store_unavailable += u64::from(report.retried_store_unavailable);
                    totals.retried_in_flight += u64::from(report.retried_in_flight);
                    totals.taken_over += u64::from(report.taken_over);
                    match report.failure {
                        None => totals.completed.push((kind, flow_id)),
                        Some(failure) => totals.failures.push(format!(
                            "ended {:.1} s into the run: {failure}",
                            started.elapsed().as_secs_f64()
                        )),
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        let _ = worker.await;
    }
    let elapsed = started.elapsed();
    let mut totals = Arc::try_unwrap(totals)
        .ok()
        .expect("every worker has finished")
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    report(&args, &mut totals, elapsed)
}

fn report(args: &Args, totals: &mut Totals, elapsed: Duration) -> ExitCode {
    let completed = totals.completed.len();
    let failed = totals.failures.len();
    for failure in totals.failures.iter().take(10) {
        println!("failed flow: {failure}");
    }
    println!(
        "flows in flight: {}, run: {:.1} s, round attempts retried after a broken connection: {}, after no answer within {:?}: {}, after -32603 replay store unavailable: {}, after -32603 in flight (a lease held by a killed instance): {}",
        args.flows,
        elapsed.as_secs_f64(),
        totals.retried,
        wire::ATTEMPT_TIMEOUT,
        totals.unanswered.len(),
        totals.retried_store_unavailable,
        totals.retried_in_flight,
    );
    // Rare (a request caught in a rolling restart), and each worth seeing: where it was lost.
    for unanswered in totals.unanswered.iter().take(5) {
        println!("unanswered attempt: {unanswered}");
    }
    println!(
        "rounds taken over once the lease of the instance that stranded them ran out: {}",
        totals.taken_over
    );
    for (index, latencies) in totals.latencies.iter_mut().enumerate() {
        latencies.sort_unstable();
        println!(
            "round {}: {} rounds, p50 {:.2} ms, p99 {:.2} ms",
            index + 1,
            latencies.len(),
            percentile(latencies, 50) as f64 / 1000.0,
            percentile(latencies, 99) as f64 / 1000.0
        );
    }
    for kind in Kind::ALL {
        let done = totals.completed.iter().filter(|(k, _)| *k == kind).count();
        println!("{}: {done} completed", kind.tool());
    }
    println!(
        "throughput: {:.1} flows/s",
        completed as f64 / elapsed.as_secs_f64()
    );
    let effects = match effects::count(&args.effects, &totals.started, &totals.completed) {
        Ok(effects) => effects,
        Err(error) => {
            eprintln!(
                "fleet-load: cannot read the effect logs in {}: {error}",
                args.effects.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let summarized = totals
        .completed
        .iter()
        .filter(|(k, _)| *k == Kind::Summarize)
        .count();
    println!(
        "effects: {} deploy/publish flows with exactly one effect, {} completed without one, {} duplicates; {} summaries recorded for {summarized} completed summarize flows; {} runs of a round found their effect already recorded under its key",
        effects.exactly_once,
        effects.missing,
        effects.duplicates,
        effects.summaries,
        effects.absorbed
    );
    let mut missed = Vec::new();
    if completed == 0 {
        missed.push("no flow completed");
    }
    if failed > 0 {
        missed.push("flows failed");
    }
    if totals.resumed_elsewhere == 0 {
        missed.push("no round resumed on another instance");
    }
    if effects.duplicates > 0 {
        missed.push("duplicate effects");
    }
    if effects.missing > 0 {
        missed.push("completed flows without their effect");
    }
    for target in &missed {
        println!("target missed: {target}");
    }
    println!(
        "fleet: {completed} flows completed, {failed} failed, {} resumed elsewhere, {} duplicate effects",
        totals.resumed_elsewhere, effects.duplicates
    );
    if missed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn percentile(sorted: &[u64], p: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) * p) / 100]
}
