//! Instructions per flow, counted by valgrind's callgrind: the flow benchmark's figure that a
//! busy machine cannot move. Time-based figures on a shared 2-core machine drift by tens of
//! percent between passes; an instruction count is the same for the same binary and inputs
//! whatever else runs (allocation and scheduling jitter aside), so two servers' ratio is read
//! off one short run.
//!
//! ```text
//! instructions [--flows 90] [--warmup 30] [--dumps DIR]
//!              --server 'LABEL=COMMAND ARGS..' ..   (2026-07-28 flows)
//!              --legacy 'LABEL=COMMAND ARGS..' ..   (legacy sessions)
//! ```
//!
//! Each server runs under `valgrind --tool=callgrind`; `--warmup` flows on one connection fill
//! its caches, the counters are zeroed (`callgrind_control -z`), exactly `--flows` flows run
//! (the three kinds in turn, so keep it a multiple of 3), and the dump's total is divided by
//! them. Native servers only: a JIT (Node) or an interpreter under valgrind measures valgrind.

use std::process::Command;

use mrtr_flows::load::{Era, drive_flows};
use mrtr_flows::report::era_name;
use mrtr_flows::server::{Server, ServerSpec};

struct Options {
    flows: u64,
    warmup: u64,
    /// Where to keep each server's dump (`LABEL.callgrind`), for `callgrind_annotate`.
    dumps: Option<String>,
    servers: Vec<(ServerSpec, Era)>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        flows: 90,
        warmup: 30,
        dumps: None,
        servers: Vec::new(),
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let count = |text: String| text.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--flows" => options.flows = count(value()?)?.max(1),
            "--warmup" => options.warmup = count(value()?)?,
            "--dumps" => options.dumps = Some(value()?),
            other => {
                let era = Era::of_flag(other).ok_or(format!("unknown flag {other}"))?;
                options.servers.push((ServerSpec::parse(&value()?)?, era));
            }
        }
    }
    if options.servers.is_empty() {
        return Err("no --server or --legacy given".into());
    }
    Ok(options)
}

/// `spec` run under callgrind, its dumps written beside the server's log.
fn under_callgrind(spec: &ServerSpec, out: &str) -> ServerSpec {
    let mut command = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={out}"),
    ];
    command.extend(spec.command.iter().cloned());
    ServerSpec {
        label: spec.label.clone(),
        command,
    }
}

fn callgrind_control(flag: &str, pid: u32) -> Result<(), String> {
    let status = Command::new("callgrind_control")
        .arg(flag)
        .arg(pid.to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("callgrind_control: {e}"))?;
    status
        .success()
        .then_some(())
        .ok_or(format!("callgrind_control {flag} {pid}: {status}"))
}

/// The `totals:` (instructions) of a callgrind dump.
fn total_instructions(dump: &str) -> Result<u64, String> {
    let text = std::fs::read_to_string(dump).map_err(|e| format!("{dump}: {e}"))?;
    text.lines()
        .find_map(|line| {
            line.strip_prefix("totals:")
                .or(line.strip_prefix("summary:"))
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .ok_or(format!("{dump}: no totals line"))
}

async fn count(spec: &ServerSpec, era: Era, options: &Options) -> Result<u64, String> {
    let dir = std::env::temp_dir().join(format!("mrtr-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join("callgrind.out");
    let out = out.to_str().ok_or("a temp dir that is not UTF-8")?;
    let server = Server::start(
        &under_callgrind(spec, out),
        std::time::Duration::from_secs(120),
    )?;
    let warm = drive_flows(&server.url, era, options.warmup).await;
    callgrind_control("-z", server.pid())?;
    let measured = drive_flows(&server.url, era, options.flows).await;
    callgrind_control("-d", server.pid())?;
    drop(server);
    let errors = warm.errors + measured.errors;
    if errors > 0 || measured.flows != options.flows {
        return Err(format!(
            "{}: {} of {} flows, {errors} errors: {:?}",
            spec.label,
            measured.flows,
            options.flows,
            [warm.first_errors, measured.first_errors].concat()
        ));
    }
    // The first dump on request is `<out>.1`.
    let dump = format!("{out}.1");
    if let Some(keep) = &options.dumps {
        let kept = format!("{keep}/{}.callgrind", spec.label.replace([' ', '/'], "_"));
        std::fs::copy(&dump, &kept).map_err(|e| format!("{kept}: {e}"))?;
    }
    let total = total_instructions(&dump);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(total? / options.flows)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = parse(std::env::args().skip(1))?;
    println!(
        "instructions per flow (callgrind), {} flows after {} warm-up flows, one connection\n",
        options.flows, options.warmup
    );
    println!("| server | era | instructions per flow | first row of its era ÷ this |");
    println!("|---|---|---|---|");
    let mut first: Vec<(Era, u64)> = Vec::new();
    for (spec, era) in &options.servers {
        eprintln!("instructions: {} under callgrind", spec.label);
        let per_flow = count(spec, *era, &options).await?;
        let reference = match first.iter().find(|(e, _)| e == era) {
            Some((_, reference)) => *reference,
            None => {
                first.push((*era, per_flow));
                per_flow
            }
        };
        println!(
            "| {} | {} | {:.2} M | {:.2}× |",
            spec.label,
            era_name(*era),
            per_flow as f64 / 1e6,
            reference as f64 / per_flow as f64
        );
    }
    Ok(())
}
