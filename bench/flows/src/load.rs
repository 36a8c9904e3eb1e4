//! The load generator: `connections` workers, each on its own kept-alive connection, cycling
//! through the flows for a fixed time against one server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::flows::Mix;
use crate::legacy::Session;

/// Which protocol era the flows speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: `input_required` rounds with sealed `requestState`.
    Modern,
    /// A 2025-11-25 session: live server-to-client requests on the call's stream.
    Legacy,
}

impl Era {
    /// The era a server flag names: `--server` (2026-07-28 flows) or `--legacy`.
    pub fn of_flag(flag: &str) -> Option<Era> {
        match flag {
            "--server" => Some(Era::Modern),
            "--legacy" => Some(Era::Legacy),
            _ => None,
        }
    }
}

/// What one timed segment against one server produced.
#[derive(Default)]
pub struct Segment {
    pub flows: u64,
    pub errors: u64,
    /// The first few error messages, for the report.
    pub first_errors: Vec<String>,
    /// Every round's latency, microseconds.
    pub rounds: Vec<u32>,
    pub elapsed: Duration,
}

/// How long a worker goes on.
#[derive(Clone, Copy, Debug)]
enum Budget {
    Until(Instant),
    Flows(u64),
}

/// The order in which the servers are driven in pass `pass`: reversed every other pass, so slow
/// drift on a shared machine lands on all of them alike.
pub fn pass_order(servers: usize, pass: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..servers).collect();
    if pass % 2 == 1 {
        order.reverse();
    }
    order
}

/// Drives `url` for `duration` with `connections` workers, each cycling through `mix`.
pub async fn drive(
    url: &str,
    era: Era,
    connections: usize,
    duration: Duration,
    mix: &Mix,
) -> Segment {
    let started = Instant::now();
    let budget = Budget::Until(started + duration);
    let mut total = join(url, era, connections, budget, mix).await;
    total.elapsed = started.elapsed();
    total
}

/// Runs exactly `flows` flows on one connection, one after the other, the kinds of `mix` in
/// turn: a fixed amount of work, for counting what a server spends on it.
pub async fn drive_flows(url: &str, era: Era, flows: u64, mix: &Mix) -> Segment {
    let started = Instant::now();
    let mut total = join(url, era, 1, Budget::Flows(flows), mix).await;
    total.elapsed = started.elapsed();
    total
}

async fn join(url: &str, era: Era, connections: usize, budget: Budget, mix: &Mix) -> Segment {
    let url: Arc<str> = url.into();
    let workers: Vec<_> = (0..connections)
        .map(|worker| tokio::spawn(work(url.clone(), era, worker, budget, mix.clone())))
        .collect();
    let mut total = Segment::default();
    for worker in workers {
        let segment = worker.await.unwrap_or_else(|panic| Segment {
            errors: 1,
            first_errors: vec![format!("a worker panicked: {panic}")],
            ..Segment::default()
        });
        total.flows += segment.flows;
        total.errors += segment.errors;
        total.rounds.extend(segment.rounds);
        for error in segment.first_errors {
            if total.first_errors.len() < 3 {
                total.first_errors.push(error);
            }
        }
    }
    total
}

/// One worker: one client whose pool keeps its connection alive (a legacy worker needs a
/// second one to post answers while the call's stream is open).
async fn work(url: Arc<str>, era: Era, worker: usize, budget: Budget, mix: Mix) -> Segment {
    let mut segment = Segment::default();
    let client = match reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(2)
        .build()
    {
        Ok(client) => client,
        Err(error) => return failed(segment, error.to_string()),
    };
    let session = match era {
        Era::Modern => None,
        Era::Legacy => match Session::open(&client, &url).await {
            Ok(session) => Some(session),
            Err(error) => return failed(segment, error),
        },
    };
    let mut next_id = 0;
    // Workers start at different flows so the mix is even at any moment.
    let mut turn = worker;
    let mut started = 0;
    while match budget {
        Budget::Until(deadline) => Instant::now() < deadline,
        Budget::Flows(flows) => started < flows,
    } {
        started += 1;
        let flow = mix.flow(turn);
        turn += 1;
        let outcome = match &session {
            None => {
                crate::modern::run(&client, &url, flow, &mut next_id, &mut segment.rounds).await
            }
            Some(session) => {
                session
                    .run(&client, &url, flow, &mut next_id, &mut segment.rounds)
                    .await
            }
        };
        match outcome {
            Ok(()) => segment.flows += 1,
            Err(error) => {
                segment = failed(segment, error);
                // A server that fails fast must not spin the load generator.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    segment
}

fn failed(mut segment: Segment, error: String) -> Segment {
    segment.errors += 1;
    if segment.first_errors.len() < 3 {
        segment.first_errors.push(error);
    }
    segment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_other_pass_drives_the_servers_in_reverse() {
        assert_eq!(pass_order(3, 0), [0, 1, 2]);
        assert_eq!(pass_order(3, 1), [2, 1, 0]);
        assert_eq!(pass_order(3, 2), [0, 1, 2]);
        assert!(pass_order(0, 1).is_empty());
    }
}
