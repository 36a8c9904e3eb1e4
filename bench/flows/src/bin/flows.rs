//! The flow benchmark's load generator. `bash bench/flows/run.sh` builds the servers and calls
//! it; run it yourself as
//!
//! ```text
//! flows [--connections 32] [--seconds 5] [--passes 3] [--warmup 1] [--chart PATH] [--smoke]
//!       [--paired] [--flow TOOL]..
//!       --server 'LABEL=COMMAND ARGS..' ..   (2026-07-28 flows; `{addr}`/`{port}` are filled in)
//!       --legacy 'LABEL=COMMAND ARGS..' ..   (the same flows on legacy sessions)
//! ```
//!
//! Every server is started at once on its own port and driven in turn, pass after pass
//! (alternating the order), so slow drift on a shared machine lands on all of them. The first
//! server of each era is the one the ratio column compares against (put mrtr first).
//! `--smoke` fails unless every server completed flows and none failed.
//!
//! `--flow TOOL` (repeatable) runs only that tool's flows, to see which tool a difference
//! between servers comes from.
//!
//! `--paired` drives the servers of one era at the same time instead, each on its own
//! `--connections`: they share the cores for the whole pass, so a neighbour's burst on a shared
//! machine slows them alike, and the ratio between them is steadier than between turns a few
//! seconds apart (each server's absolute flows/s is then its share of the machine). They also
//! share the caches: a server with the larger working set slows its neighbour too, so a paired
//! ratio favours it against what each server does alone.

use std::time::Duration;

use mrtr_flows::flows::Mix;
use mrtr_flows::load::{Era, drive, pass_order};
use mrtr_flows::report::{Measured, chart, table};
use mrtr_flows::server::{Server, ServerSpec};

struct Options {
    connections: usize,
    seconds: f64,
    passes: usize,
    warmup: f64,
    chart: Option<String>,
    smoke: bool,
    paired: bool,
    /// The flows each connection cycles through (`--flow`; all three by default).
    mix: Mix,
    servers: Vec<(ServerSpec, Era)>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        connections: 32,
        seconds: 5.0,
        passes: 3,
        warmup: 1.0,
        chart: None,
        smoke: false,
        paired: false,
        mix: Mix::all(),
        servers: Vec::new(),
    };
    let mut tools = Vec::new();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| text.parse::<f64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--connections" => options.connections = number(value()?)? as usize,
            "--seconds" => options.seconds = number(value()?)?,
            "--passes" => options.passes = number(value()?)? as usize,
            "--warmup" => options.warmup = number(value()?)?,
            "--chart" => options.chart = Some(value()?),
            "--smoke" => options.smoke = true,
            "--paired" => options.paired = true,
            "--flow" => tools.push(value()?),
            other => {
                let era = Era::of_flag(other).ok_or(format!("unknown flag {other}"))?;
                options.servers.push((ServerSpec::parse(&value()?)?, era));
            }
        }
    }
    if options.servers.is_empty() {
        return Err("no --server or --legacy given".into());
    }
    options.mix = Mix::named(&tools)?;
    Ok(options)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = parse(std::env::args().skip(1))?;
    let mix = &options.mix;
    let mut servers = Vec::new();
    for (spec, era) in &options.servers {
        eprintln!(
            "flows: starting {} ({})",
            spec.label,
            spec.command.join(" ")
        );
        servers.push((Server::start(spec, Duration::from_secs(60))?, *era));
    }
    let segment = Duration::from_secs_f64(options.seconds);
    let warmup = Duration::from_secs_f64(options.warmup);
    for (server, era) in &servers {
        drive(&server.url, *era, options.connections, warmup, mix).await;
    }
    let mut results: Vec<Measured> = servers
        .iter()
        .map(|(server, era)| Measured::new(&server.label, *era))
        .collect();
    for pass in 0..options.passes {
        let order = pass_order(servers.len(), pass);
        let turns: Vec<Vec<usize>> = if options.paired {
            [Era::Modern, Era::Legacy]
                .into_iter()
                .map(|era| {
                    let of_era = |index: &usize| servers[*index].1 == era;
                    order.iter().copied().filter(of_era).collect::<Vec<_>>()
                })
                .filter(|group| !group.is_empty())
                .collect()
        } else {
            order.into_iter().map(|index| vec![index]).collect()
        };
        for turn in turns {
            let before = turn
                .iter()
                .map(|&index| servers[index].0.cpu())
                .collect::<Result<Vec<_>, _>>()?;
            let driven: Vec<_> = turn
                .iter()
                .map(|&index| {
                    let (server, era) = &servers[index];
                    let (url, era, connections) = (server.url.clone(), *era, options.connections);
                    let mix = mix.clone();
                    tokio::spawn(async move { drive(&url, era, connections, segment, &mix).await })
                })
                .collect();
            for ((&index, before), driven) in turn.iter().zip(before).zip(driven) {
                let measured = driven.await?;
                let server = &servers[index].0;
                let cpu = server.cpu()?.saturating_sub(before);
                eprintln!(
                    "flows: pass {}/{}: {}: {} flows, {} errors",
                    pass + 1,
                    options.passes,
                    server.label,
                    measured.flows,
                    measured.errors
                );
                results[index].add(measured, cpu);
            }
        }
    }
    println!(
        "{} connections, {} passes of {:.1} s per server{}, flows: {}\n",
        options.connections,
        options.passes,
        options.seconds,
        if options.paired {
            " (paired: the servers of an era driven at the same time)"
        } else {
            ""
        },
        mix.describe()
    );
    println!("{}", table(&mut results));
    let mut failed = false;
    for ((server, _), result) in servers.iter().zip(&results) {
        for error in &result.first_errors {
            println!("{}: {error}", result.label);
        }
        if result.flows == 0 || result.errors > 0 {
            failed = true;
            let log = server.stderr();
            let tail: Vec<&str> = log.lines().rev().take(10).collect();
            eprintln!("{}: server log tail:", result.label);
            for line in tail.iter().rev() {
                eprintln!("  {line}");
            }
        }
    }
    if let Some(path) = &options.chart {
        let title = format!(
            "Complete MCP flows, {} connections, one run on this machine",
            options.connections
        );
        std::fs::write(path, chart(&results, &title))?;
        println!("chart written to {path}");
    }
    if options.smoke && failed {
        return Err("smoke: a server completed no flows or had errors".into());
    }
    Ok(())
}
