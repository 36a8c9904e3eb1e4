//! Where each server's CPU per flow goes, natively: the pieces of a round (open, resume,
//! suspend, seal) in microseconds per flow, from call stacks sampled by `perf` under load.
//!
//! ```text
//! pieces [--connections 32] [--seconds 4] [--passes 2] [--warmup 1] [--frequency 999]
//!        [--inline] [--flow TOOL].. --server 'LABEL=COMMAND ARGS..' ..   (2026-07-28 flows)
//! ```
//!
//! Each server is driven alone, in turn (order reversed every other pass, as `flows` does):
//! `--warmup` seconds of load, then `perf record --call-graph dwarf` attached to it for
//! `--seconds` more, with the server's CPU read from `/proc` around them. A server's samples,
//! flows and CPU are summed over its passes: on a shared machine one pass can be slowed by a
//! neighbour, and the row "everything else" shows it.
//! Every sample goes to the innermost function on its stack that belongs to a piece
//! (`mrtr_flows::stacks::ROUND_PIECES`), and a piece's row is its share of the samples times
//! the CPU per flow, so the rows add up to the CPU per flow. Where `flows` shows the example
//! costing more CPU per flow than rmcp by hand, this shows which piece of the round the
//! difference is in. The attribution is statistical: at 999 Hz for 4 s a server gives about
//! 4,000 samples, so a row of 1 µs moves by a few tenths between runs.
//!
//! A function the compiler inlined counts to the function it was inlined into: the pieces are
//! functions that stay out of line. `--inline` also resolves the frames of inlined functions
//! (`perf script` runs addr2line, about a minute a pass), for a look inside a piece; the rows
//! come out the same within their spread.
//!
//! Needs `perf` (Debian `linux-perf`) and permission to attach to the server (root, or
//! `kernel.perf_event_paranoid` at most 1); native servers only, like `instructions`.

use std::process::{Command, Stdio};
use std::time::Duration;

use mrtr_flows::flows::Mix;
use mrtr_flows::load::{Era, drive, pass_order};
use mrtr_flows::server::{Server, ServerSpec};
use mrtr_flows::stacks::{self, ROUND_PIECES, Split};

struct Options {
    connections: usize,
    seconds: f64,
    passes: usize,
    warmup: f64,
    frequency: u32,
    inline: bool,
    mix: Mix,
    servers: Vec<ServerSpec>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        connections: 32,
        seconds: 4.0,
        passes: 2,
        warmup: 1.0,
        frequency: 999,
        inline: false,
        mix: Mix::all(),
        servers: Vec::new(),
    };
    let mut tools = Vec::new();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| text.parse::<f64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--connections" => {
                options.connections = value()?.parse().map_err(|e| format!("{flag}: {e}"))?
            }
            "--seconds" => options.seconds = number(value()?)?,
            "--passes" => options.passes = value()?.parse().map_err(|e| format!("{flag}: {e}"))?,
            "--warmup" => options.warmup = number(value()?)?,
            "--frequency" => {
                options.frequency = value()?.parse().map_err(|e| format!("{flag}: {e}"))?
            }
            "--inline" => options.inline = true,
            "--flow" => tools.push(value()?),
            "--server" => options.servers.push(ServerSpec::parse(&value()?)?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if options.servers.is_empty() {
        return Err("no --server given".into());
    }
    if !(options.seconds > 0.0 && options.warmup >= 0.0)
        || options.connections == 0
        || options.passes == 0
    {
        return Err("--seconds, --passes and --connections must be positive".into());
    }
    options.mix = Mix::named(&tools)?;
    Ok(options)
}

/// One server's samples split into pieces, with what scales them to microseconds per flow:
/// summed over its passes.
struct Measured {
    label: String,
    flows: u64,
    cpu: Duration,
    split: Split,
}

impl Measured {
    fn new(label: &str) -> Self {
        Measured {
            label: label.to_owned(),
            flows: 0,
            cpu: Duration::ZERO,
            split: Split::empty(ROUND_PIECES.len()),
        }
    }

    fn add(&mut self, pass: Measured) {
        self.flows += pass.flows;
        self.cpu += pass.cpu;
        self.split.add(&pass.split);
    }

    fn cpu_per_flow_us(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.flows.max(1) as f64
    }

    /// A row's microseconds per flow: its share of the samples of the CPU per flow.
    fn per_flow(&self, samples: u64) -> f64 {
        match self.split.total() {
            0 => 0.0,
            total => self.cpu_per_flow_us() * samples as f64 / total as f64,
        }
    }
}

/// One pass on `server`: warm-up, then load under `perf record`.
async fn pass(server: &Server, options: &Options) -> Result<Measured, String> {
    let load_for = |seconds: f64| {
        let duration = Duration::from_secs_f64(seconds);
        drive(
            &server.url,
            Era::Modern,
            options.connections,
            duration,
            &options.mix,
        )
    };
    let warm = load_for(options.warmup).await;
    let data = std::env::temp_dir().join(format!("mrtr-pieces-{}.data", std::process::id()));
    let data = data
        .to_str()
        .ok_or("a temp dir that is not UTF-8")?
        .to_owned();
    let mut record = Command::new("perf")
        .args(["record", "--call-graph", "dwarf,16384", "-F"])
        .arg(options.frequency.to_string())
        .args(["-p", &server.pid().to_string(), "-o", &data])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("perf record: {e}"))?;
    // perf attaches to every thread before it samples; load before that would go uncounted
    // in the samples but counted in the CPU.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cpu_before = server.cpu()?;
    let load = load_for(options.seconds).await;
    let cpu = server.cpu()?.saturating_sub(cpu_before);
    // SIGINT makes perf write out its data and exit.
    let stopped = Command::new("kill")
        .args(["-INT", &record.id().to_string()])
        .status();
    let recorded = record.wait();
    let script = stacks_of(&data, options.inline);
    let _ = std::fs::remove_file(&data);
    let errors = warm.errors + load.errors;
    if errors > 0 || load.flows == 0 {
        return Err(format!(
            "{}: {} flows, {errors} errors: {:?}",
            server.label,
            load.flows,
            [warm.first_errors, load.first_errors].concat()
        ));
    }
    match (stopped, recorded) {
        (Ok(_), Ok(status)) if status.success() || status.code().is_none() => {}
        (stopped, recorded) => {
            return Err(format!(
                "perf record: stopped {stopped:?}, exited {recorded:?}"
            ));
        }
    }
    let split = stacks::split(&script?, ROUND_PIECES);
    if split.total() == 0 {
        return Err(format!("{}: perf recorded no samples", server.label));
    }
    Ok(Measured {
        label: server.label.clone(),
        flows: load.flows,
        cpu,
        split,
    })
}

/// The stacks `perf script` prints from the recording `data` (inlined frames only if `inline`).
fn stacks_of(data: &str, inline: bool) -> Result<String, String> {
    let mut script = Command::new("perf");
    script.args(["script", "-F", "ip,sym", "-i", data]);
    if !inline {
        script.arg("--no-inline");
    }
    let script = script
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("perf script: {e}"))?;
    if !script.status.success() {
        return Err(format!("perf script: {}", script.status));
    }
    Ok(String::from_utf8_lossy(&script.stdout).into_owned())
}

/// The table: a row per piece, the rest, the pieces together and the whole CPU per flow; a
/// column per server, and with two or more the first's difference to the others.
fn table(servers: &[Measured]) -> String {
    let mut out = String::from("| µs of server CPU per flow |");
    for server in servers {
        out.push_str(&format!(" {} |", server.label));
    }
    let others = &servers[1.min(servers.len())..];
    for other in others {
        out.push_str(&format!(" {} − {} |", servers[0].label, other.label));
    }
    out.push_str(&format!(
        "\n|---|{}\n",
        "---|".repeat(servers.len() + others.len())
    ));
    let mut row = |name: &str, value: &dyn Fn(&Measured) -> f64| {
        out.push_str(&format!("| {name} |"));
        for server in servers {
            out.push_str(&format!(" {:.1} |", value(server)));
        }
        for other in others {
            out.push_str(&format!(" {:+.1} |", value(&servers[0]) - value(other)));
        }
        out.push('\n');
    };
    for (index, piece) in ROUND_PIECES.iter().enumerate() {
        row(piece.name, &|m| m.per_flow(m.split.pieces[index]));
    }
    row("**the pieces together**", &|m| {
        m.per_flow(m.split.pieces.iter().sum())
    });
    row("everything else", &|m| m.per_flow(m.split.rest));
    row("**server CPU per flow**", &|m| m.cpu_per_flow_us());
    out
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = parse(std::env::args().skip(1))?;
    // Started together, driven one at a time: an idle server costs the driven one nothing.
    let servers = options
        .servers
        .iter()
        .map(|spec| Server::start(spec, Duration::from_secs(60)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut measured: Vec<Measured> = servers.iter().map(|s| Measured::new(&s.label)).collect();
    for number in 0..options.passes {
        for index in pass_order(servers.len(), number) {
            let server = &servers[index];
            let one = pass(server, &options).await?;
            eprintln!(
                "pieces: pass {}/{}: {}: {} flows, {} samples",
                number + 1,
                options.passes,
                server.label,
                one.flows,
                one.split.total()
            );
            measured[index].add(one);
        }
    }
    println!(
        "server CPU per flow by piece of the round (perf at {} Hz; {} pass{} of {} s after {} s of warm-up per server, {} connections, each server alone): {}\n",
        options.frequency,
        options.passes,
        if options.passes == 1 { "" } else { "es" },
        options.seconds,
        options.warmup,
        options.connections,
        options.mix.describe()
    );
    print!("{}", table(&measured));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(label: &str, cpu_per_flow_us: f64, pieces: &[u64], rest: u64) -> Measured {
        let mut split = Split::empty(ROUND_PIECES.len());
        split.pieces[..pieces.len()].copy_from_slice(pieces);
        split.rest = rest;
        Measured {
            label: label.to_owned(),
            flows: 100,
            cpu: Duration::from_secs_f64(cpu_per_flow_us * 100.0 / 1e6),
            split,
        }
    }

    #[test]
    fn rows_are_shares_of_the_cpu_per_flow_and_add_up_to_it() {
        // 100 samples: the first piece a quarter of 300 µs, the rest three quarters.
        let example = measured("mrtr", 300.0, &[25], 75);
        let baseline = measured("rmcp", 200.0, &[10], 90);
        let table = table(&[example, baseline]);
        let row = |start: &str| {
            table
                .lines()
                .find(|line| line.starts_with(start))
                .unwrap()
                .to_owned()
        };
        assert_eq!(
            row(&format!("| {} |", ROUND_PIECES[0].name)),
            format!("| {} | 75.0 | 20.0 | +55.0 |", ROUND_PIECES[0].name)
        );
        assert_eq!(
            row("| **the pieces together**"),
            "| **the pieces together** | 75.0 | 20.0 | +55.0 |"
        );
        assert_eq!(
            row("| everything else"),
            "| everything else | 225.0 | 180.0 | +45.0 |"
        );
        assert_eq!(
            row("| **server CPU per flow**"),
            "| **server CPU per flow** | 300.0 | 200.0 | +100.0 |"
        );
        assert!(table.starts_with("| µs of server CPU per flow | mrtr | rmcp | mrtr − rmcp |\n"));
    }

    #[test]
    fn passes_add_their_samples_flows_and_cpu() {
        let mut sum = Measured::new("mrtr");
        // 100 flows at 300 µs, then 300 flows at 100 µs: 150 µs a flow over both.
        sum.add(measured("mrtr", 300.0, &[30], 70));
        let mut fast = measured("mrtr", 100.0, &[10], 90);
        fast.flows = 300;
        fast.cpu *= 3;
        sum.add(fast);
        assert_eq!(sum.flows, 400);
        assert!((sum.cpu_per_flow_us() - 150.0).abs() < 1e-6);
        assert_eq!(sum.split.pieces[0], 40);
        assert_eq!(sum.split.total(), 200);
        assert!((sum.per_flow(sum.split.pieces[0]) - 30.0).abs() < 1e-6);
    }

    #[test]
    fn one_server_has_no_difference_column() {
        let table = table(&[measured("mrtr", 100.0, &[], 10)]);
        assert!(table.starts_with("| µs of server CPU per flow | mrtr |\n|---|---|\n"));
        assert!(table.contains("| everything else | 100.0 |\n"));
    }

    #[test]
    fn options_need_a_server_and_positive_durations() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert!(parse(args(&[]).into_iter()).is_err());
        assert!(parse(args(&["--seconds", "0", "--server", "a=true"]).into_iter()).is_err());
        assert!(parse(args(&["--legacy", "a=true"]).into_iter()).is_err());
        let options = parse(
            args(&[
                "--seconds",
                "2.5",
                "--frequency",
                "499",
                "--server",
                "a=true",
            ])
            .into_iter(),
        )
        .unwrap();
        assert_eq!(
            (
                options.seconds,
                options.frequency,
                options.passes,
                options.inline
            ),
            (2.5, 499, 2, false)
        );
        let resolved = parse(args(&["--inline", "--server", "a=true"]).into_iter()).unwrap();
        assert!(resolved.inline);
        assert!(parse(args(&["--passes", "0", "--server", "a=true"]).into_iter()).is_err());
        assert_eq!(options.servers.len(), 1);
    }
}
