//! Instructions per flow, counted by valgrind's callgrind: the flow benchmark's figure that a
//! busy machine cannot move. Time-based figures on a shared 2-core machine drift by tens of
//! percent between passes; an instruction count is the same for the same binary and inputs
//! whatever else runs (allocation and scheduling jitter aside), so two servers' ratio is read
//! off one short run.
//!
//! ```text
//! instructions [--flows 90] [--warmup 30] [--dumps DIR] [--cache-sim | --last-level BYTES]
//!              [--branch-sim] [--footprint] [--by-crate] [--by-part] [--by-function]
//!              [--flow TOOL]..
//!              --server 'LABEL=COMMAND ARGS..' ..   (2026-07-28 flows)
//!              --legacy 'LABEL=COMMAND ARGS..' ..   (legacy sessions)
//! ```
//!
//! Each server runs under `valgrind --tool=callgrind`; `--warmup` flows on one connection fill
//! its caches, the counters are zeroed (`callgrind_control -z`), exactly `--flows` flows run
//! (the three kinds in turn, so keep it a multiple of 3; `--flow TOOL` counts one tool's flows
//! only), and the dump's total is divided by
//! them. Native servers only: a JIT (Node) or an interpreter under valgrind measures valgrind.
//!
//! `--cache-sim` also simulates the caches (32 KB L1s, a 1 MB 16-way last level) and reports
//! per flow the first-level code misses and the last-level misses, split into code fetches and
//! data: what an instruction count cannot see, and why the native time ratio can be larger than
//! the instruction ratio. On a machine whose second level holds every server's whole working
//! set (this one's: 2 MiB a core), the first-level code misses are the ones that cost: each is a
//! line of the round's code fetched again because the rest of the round evicted it.
//!
//! `--last-level BYTES` sets another last level, any multiple of 64 KiB up to 4 MiB, always 1024
//! sets of 64-byte lines with one way per 64 KiB (so 1 MiB is the default's 16 ways): a server's
//! misses across sizes a few percent apart show how large its working set per flow is, and a
//! server whose set just outgrows the cache it shares with the load generator and its neighbours
//! misses several times as often as one that just fits.
//!
//! valgrind runs no SHA extensions, so `sha2` takes its portable code under it where natively
//! it uses the CPU's SHA-256 instructions: a server that hashes many bytes (rmcp by hand's
//! HMAC over its JSON state) counts far more instructions and code here than it runs natively.
//! Read the SHA-256 part of `--by-part` with that in mind.
//!
//! `--branch-sim` also simulates branch prediction and reports the mispredicted branches per
//! flow, conditional and indirect. Like first-level misses they grow with the code a round runs
//! (the predictor's tables are shared by all of it), so a server with more code also mispredicts
//! more in the code both servers run.
//!
//! `--footprint` also counts the code each server ran over the measured flows: the distinct
//! 64-byte lines its executed instructions sit in (from `--dump-instr=yes`), in KiB. Far more
//! than the 32 KiB first-level instruction cache for any server here, so a round fetches most
//! of it again, and a server with fewer instructions but more code can still be the slower.
//! Beside it, the distinct 4 KiB pages that code sits in: how thinly it is spread, which costs
//! instruction-TLB misses on top of the fetches.
//!
//! `--by-crate` follows the table with each era's costs per flow by crate (instructions, and
//! first-level code misses with a simulated cache, KiB of code run with `--footprint`), the
//! crates where the servers differ most first: whether a difference is one server's own code or
//! shared code (hyper, serde, tokio) fetched again.
//!
//! `--by-part` does the same by part of a round (`mrtr_flows::parts`: the AEAD, the claims,
//! CBOR, the bind digest, the limits, the pre-scan, ... and everything no part names): with
//! `--footprint`, which feature of the runtime the code a flow runs beyond the hand-written
//! port is spent on.
//!
//! `--by-function` lists the functions those parts are made of (every function some part
//! names, a hand-written server's codec and bodies included), the largest differences first,
//! with the code each ran in 64-byte lines under `--footprint`: the list a change to the round's
//! code is read against. Read small differences as none: linked again after an unrelated change,
//! a function's code run moves by a few lines (where its blocks fall within lines, what the
//! compiler inlined) and the whole server's by a few KiB, and its first-level misses by about
//! ten either way, since the lines that share a set of the simulated cache change with every
//! address.

use std::collections::BTreeMap;
use std::process::Command;

use mrtr_flows::callgrind::{self, Cost};
use mrtr_flows::flows::Mix;
use mrtr_flows::load::{Era, drive_flows};
use mrtr_flows::parts;
use mrtr_flows::report::era_name;
use mrtr_flows::server::{Server, ServerSpec};

struct Options {
    flows: u64,
    warmup: u64,
    /// Where to keep each server's dump (`LABEL.callgrind`), for `callgrind_annotate`.
    dumps: Option<String>,
    /// The simulated last level in bytes; `None`: no cache simulation.
    last_level: Option<u64>,
    /// Whether to simulate branch prediction (`--branch-sim=yes`).
    branch_sim: bool,
    /// Whether to count the code each server ran (`--dump-instr=yes`).
    footprint: bool,
    /// Whether to break each server's costs down by crate.
    by_crate: bool,
    /// Whether to break each server's costs down by part of a round.
    by_part: bool,
    /// Whether to list the runtime's functions (those a part names) with their costs.
    by_function: bool,
    /// The flows each connection cycles through (`--flow`; all three by default).
    mix: Mix,
    servers: Vec<(ServerSpec, Era)>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        flows: 90,
        warmup: 30,
        dumps: None,
        last_level: None,
        branch_sim: false,
        footprint: false,
        by_crate: false,
        by_part: false,
        by_function: false,
        mix: Mix::all(),
        servers: Vec::new(),
    };
    let mut tools = Vec::new();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let count = |text: String| text.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--flows" => options.flows = count(value()?)?.max(1),
            "--warmup" => options.warmup = count(value()?)?,
            "--dumps" => options.dumps = Some(value()?),
            "--cache-sim" => options.last_level = Some(DEFAULT_LAST_LEVEL),
            "--last-level" => options.last_level = Some(last_level(&value()?)?),
            "--branch-sim" => options.branch_sim = true,
            "--footprint" => options.footprint = true,
            "--by-crate" => options.by_crate = true,
            "--by-part" => options.by_part = true,
            "--by-function" => options.by_function = true,
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

/// The last level `--cache-sim` simulates: 1 MiB, smaller than this machine's 2 MiB L2 per core,
/// which the load generator and the other servers share in a benchmark run.
const DEFAULT_LAST_LEVEL: u64 = 1 << 20;

/// One way of the simulated last level: 1024 sets of 64-byte lines. Sizes are whole ways, so a
/// sweep in steps of 64 KiB changes only the associativity, never the sets a line maps to.
const LAST_LEVEL_WAY: u64 = 1024 * 64;
const LAST_LEVEL_MAX_WAYS: u64 = 64;

/// A last-level size in whole ways, from one way (64 KiB) to 64 (4 MiB).
fn last_level(text: &str) -> Result<u64, String> {
    let bytes: u64 = text
        .parse()
        .map_err(|e| format!("--last-level {text}: {e}"))?;
    let ways = bytes / LAST_LEVEL_WAY;
    if !bytes.is_multiple_of(LAST_LEVEL_WAY) || !(1..=LAST_LEVEL_MAX_WAYS).contains(&ways) {
        return Err(format!(
            "--last-level {text}: a multiple of 65536 bytes, from 65536 to 4194304"
        ));
    }
    Ok(bytes)
}

/// `spec` run under callgrind, its dumps written beside the server's log.
fn under_callgrind(spec: &ServerSpec, out: &str, options: &Options) -> ServerSpec {
    let mut command = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={out}"),
    ];
    if options.footprint {
        command.push("--dump-instr=yes".to_owned());
    }
    if options.branch_sim {
        command.push("--branch-sim=yes".to_owned());
    }
    if let Some(bytes) = options.last_level {
        // Given explicitly so the figure does not follow whatever cache valgrind detects.
        command
            .extend(["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64"].map(str::to_owned));
        command.push(format!("--LL={bytes},{},64", bytes / LAST_LEVEL_WAY));
    }
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

/// A dump's totals: instructions, cache misses when the caches were simulated, mispredicted
/// branches when the predictor was.
struct Totals {
    instructions: u64,
    cache_misses: Option<Misses>,
    mispredicted: Option<Mispredicted>,
}

/// Mispredicted branches: conditional (`Bcm`) and indirect (`Bim`: calls through a pointer or a
/// vtable, jump tables, returns of a `dyn` poll).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mispredicted {
    conditional: u64,
    indirect: u64,
}

/// Code fetches that missed the first level (`I1mr`); last-level misses: code fetched
/// (`ILmr`), and data read or written (`DLmr` + `DLmw`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Misses {
    first_level_code: u64,
    code: u64,
    data: u64,
}

impl Totals {
    fn per_flow(self, flows: u64) -> Totals {
        Totals {
            instructions: self.instructions / flows,
            cache_misses: self.cache_misses.map(|misses| Misses {
                first_level_code: misses.first_level_code / flows,
                code: misses.code / flows,
                data: misses.data / flows,
            }),
            mispredicted: self.mispredicted.map(|branches| Mispredicted {
                conditional: branches.conditional / flows,
                indirect: branches.indirect / flows,
            }),
        }
    }
}

/// Reads the `events:` header and the `totals:` (or `summary:`) line of a callgrind dump
/// (`text`, read from the file `dump`).
fn totals(dump: &str, text: &str) -> Result<Totals, String> {
    let events: Vec<&str> = text
        .lines()
        .find_map(|line| line.strip_prefix("events:"))
        .ok_or(format!("{dump}: no events line"))?
        .split_whitespace()
        .collect();
    let values: Vec<u64> = text
        .lines()
        .find_map(|line| {
            line.strip_prefix("totals:")
                .or(line.strip_prefix("summary:"))
        })
        .ok_or(format!("{dump}: no totals line"))?
        .split_whitespace()
        .map(|value| value.parse().map_err(|e| format!("{dump}: totals: {e}")))
        .collect::<Result<_, _>>()?;
    // Trailing zero counts may be left off the totals line.
    let event = |name: &str| {
        let index = events.iter().position(|event| *event == name)?;
        Some(values.get(index).copied().unwrap_or(0))
    };
    let instructions = event("Ir").ok_or(format!("{dump}: no Ir event"))?;
    let cache_misses = match (event("I1mr"), event("ILmr"), event("DLmr"), event("DLmw")) {
        (Some(first_level_code), Some(code), Some(read), Some(write)) => Some(Misses {
            first_level_code,
            code,
            data: read + write,
        }),
        _ => None,
    };
    let mispredicted = match (event("Bcm"), event("Bim")) {
        (Some(conditional), Some(indirect)) => Some(Mispredicted {
            conditional,
            indirect,
        }),
        _ => None,
    };
    Ok(Totals {
        instructions,
        cache_misses,
        mispredicted,
    })
}

/// A server's counts per flow: the dump's totals, the code it ran (KiB and pages over the
/// measured flows, with `--footprint`), and its costs by crate and by part if asked for.
struct Counted {
    totals: Totals,
    code_run: Option<(u64, u64)>,
    by_crate: BTreeMap<String, Cost>,
    by_part: BTreeMap<String, Cost>,
    by_function: BTreeMap<String, Cost>,
}

/// The dump's counts per flow.
async fn count(spec: &ServerSpec, era: Era, options: &Options) -> Result<Counted, String> {
    let dir = std::env::temp_dir().join(format!("mrtr-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join("callgrind.out");
    let out = out.to_str().ok_or("a temp dir that is not UTF-8")?;
    let server = Server::start(
        &under_callgrind(spec, out, options),
        std::time::Duration::from_secs(120),
    )?;
    let warm = drive_flows(&server.url, era, options.warmup, &options.mix).await;
    callgrind_control("-z", server.pid())?;
    let measured = drive_flows(&server.url, era, options.flows, &options.mix).await;
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
    let counted = counted(&dump, options);
    let _ = std::fs::remove_dir_all(&dir);
    counted
}

fn counted(dump: &str, options: &Options) -> Result<Counted, String> {
    let flows = options.flows;
    // A dump with a simulated cache runs to tens of megabytes: read once for both.
    let text = std::fs::read_to_string(dump).map_err(|e| format!("{dump}: {e}"))?;
    let crates = if options.by_crate || options.footprint {
        callgrind::by_crate(&text)?
    } else {
        BTreeMap::new()
    };
    // Code lines are a set over all the measured flows, not a sum: they are not divided.
    let code_run = if options.footprint {
        let kib = callgrind::code_kib(crates.values().map(|cost| cost.code_lines).sum());
        Some((kib, callgrind::code_pages(&text)?))
    } else {
        None
    };
    let per_flow = |costs: BTreeMap<String, Cost>| -> BTreeMap<String, Cost> {
        costs
            .into_iter()
            .map(|(name, cost)| {
                let cost = Cost {
                    instructions: cost.instructions / flows,
                    code_misses: cost.code_misses / flows,
                    code_lines: cost.code_lines,
                    code_pages: cost.code_pages,
                };
                (name, cost)
            })
            .collect()
    };
    let by_crate = if options.by_crate {
        per_flow(crates)
    } else {
        BTreeMap::new()
    };
    let by_part = if options.by_part {
        per_flow(callgrind::by_part(&text)?)
    } else {
        BTreeMap::new()
    };
    let by_function = if options.by_function {
        per_flow(callgrind::by_function(&text)?)
    } else {
        BTreeMap::new()
    };
    Ok(Counted {
        totals: totals(dump, &text)?.per_flow(flows),
        code_run,
        by_crate,
        by_part,
        by_function,
    })
}

/// How many crates the breakdown shows per era.
const CRATE_ROWS: usize = 16;

/// How many of the runtime's functions the breakdown shows per era.
const FUNCTION_ROWS: usize = 40;

/// Which columns a breakdown table has: instructions always, code misses with a simulated
/// cache, the code run with `--footprint` (in KiB, or in lines for functions).
#[derive(Clone, Copy)]
struct Columns {
    simulated: bool,
    footprint: bool,
    /// The code run in 64-byte lines rather than KiB: a function runs a few KiB at most.
    in_lines: bool,
}

impl Columns {
    fn of(options: &Options) -> Self {
        Columns {
            simulated: options.last_level.is_some(),
            footprint: options.footprint,
            in_lines: false,
        }
    }

    fn values(self, cost: Cost) -> Vec<u64> {
        let mut values = vec![cost.instructions];
        if self.simulated {
            values.push(cost.code_misses);
        }
        if self.footprint {
            values.push(if self.in_lines {
                cost.code_lines
            } else {
                callgrind::code_kib(cost.code_lines)
            });
        }
        values
    }

    fn headers(self) -> Vec<&'static str> {
        let mut headers = vec!["instructions"];
        if self.simulated {
            headers.push("first-level code misses");
        }
        if self.footprint {
            headers.push(if self.in_lines {
                "code run (lines)"
            } else {
                "code run (KiB)"
            });
        }
        headers
    }

    /// What the rows are ranked by: the code run if counted, else the code misses if
    /// simulated, else the instructions.
    fn weight(self, cost: Cost) -> u64 {
        if self.footprint {
            cost.code_lines
        } else if self.simulated {
            cost.code_misses
        } else {
            cost.instructions
        }
    }
}

type Breakdown<'a> = (&'a str, &'a BTreeMap<String, Cost>);

fn cost_of(costs: &BTreeMap<String, Cost>, name: &str) -> Cost {
    costs.get(name).copied().unwrap_or_default()
}

/// One era's servers' costs by crate, the crates where they differ most from the era's first
/// server first (or, with one server, its largest).
fn crate_table(servers: &[Breakdown<'_>], columns: Columns) -> String {
    let crates = ranked(servers, columns, CRATE_ROWS);
    breakdown_table("crate", &crates, servers, columns)
}

/// One era's servers' costs by the runtime's function, ranked as crates are: a hand-written
/// server has none of them, so beside one the list is the example's largest.
fn function_table(servers: &[Breakdown<'_>], columns: Columns) -> String {
    let columns = Columns {
        in_lines: true,
        ..columns
    };
    let functions = ranked(servers, columns, FUNCTION_ROWS);
    breakdown_table("function", &functions, servers, columns)
}

/// The `rows` names where the servers differ most from the era's first server (or, with one
/// server, its largest).
fn ranked<'a>(servers: &[Breakdown<'a>], columns: Columns, rows: usize) -> Vec<&'a str> {
    let mut names: Vec<&str> = servers
        .iter()
        .flat_map(|(_, costs)| costs.keys().map(String::as_str))
        .collect();
    names.sort();
    names.dedup();
    let first = servers[0].1;
    let rank = |name: &str| {
        let reference = columns.weight(cost_of(first, name));
        match servers {
            [_] => reference,
            _ => servers
                .iter()
                .map(|(_, costs)| columns.weight(cost_of(costs, name)).abs_diff(reference))
                .max()
                .unwrap_or(0),
        }
    };
    names.sort_by_key(|name| std::cmp::Reverse(rank(name)));
    names.truncate(rows);
    names
}

/// One era's servers' costs by part of a round, in the parts' order, then everything else.
fn part_table(servers: &[Breakdown<'_>], columns: Columns) -> String {
    let parts: Vec<&str> = parts::PARTS
        .iter()
        .map(|(part, _)| *part)
        .chain([parts::EVERYTHING_ELSE])
        .filter(|part| servers.iter().any(|(_, costs)| costs.contains_key(*part)))
        .collect();
    breakdown_table("part", &parts, servers, columns)
}

/// A row per name, a column per server and figure.
fn breakdown_table(
    heading: &str,
    names: &[&str],
    servers: &[Breakdown<'_>],
    columns: Columns,
) -> String {
    let headers = columns.headers();
    let mut table = format!("| {heading} |");
    for (label, _) in servers {
        for header in &headers {
            table.push_str(&format!(" {label}: {header} |"));
        }
    }
    table.push_str("\n|---|");
    table.push_str(&"---|".repeat(servers.len() * headers.len()));
    table.push('\n');
    for name in names {
        table.push_str(&format!("| {name} |"));
        for (_, costs) in servers {
            for value in columns.values(cost_of(costs, name)) {
                table.push_str(&format!(" {value} |"));
            }
        }
        table.push('\n');
    }
    table
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = parse(std::env::args().skip(1))?;
    println!(
        "instructions per flow (callgrind), {} flows after {} warm-up flows, one connection: {}\n",
        options.flows,
        options.warmup,
        options.mix.describe()
    );
    let misses_columns = options.last_level.map_or(String::new(), |bytes| {
        let size = match bytes {
            b if b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
            b => format!("{} KiB", b >> 10),
        };
        format!(
            " first-level code misses per flow | last-level misses per flow ({size}): code | data |"
        )
    });
    let branch_columns = if options.branch_sim {
        " mispredicted branches per flow: conditional | indirect |"
    } else {
        ""
    };
    let code_column = if options.footprint {
        " code run over the flows (KiB) | its 4 KiB pages |"
    } else {
        ""
    };
    println!(
        "| server | era | instructions per flow | first row of its era ÷ this |{misses_columns}{branch_columns}{code_column}"
    );
    println!(
        "|---|---|---|---|{}{}{}",
        if options.last_level.is_some() {
            "---|---|---|"
        } else {
            ""
        },
        if options.branch_sim { "---|---|" } else { "" },
        if options.footprint { "---|---|" } else { "" }
    );
    let mut first: Vec<(Era, u64)> = Vec::new();
    let mut breakdowns = Vec::new();
    for (spec, era) in &options.servers {
        eprintln!("instructions: {} under callgrind", spec.label);
        let counted = count(spec, *era, &options).await?;
        let Totals {
            instructions: per_flow,
            cache_misses: misses,
            mispredicted,
        } = counted.totals;
        breakdowns.push((
            spec.label.as_str(),
            *era,
            [counted.by_crate, counted.by_part, counted.by_function],
        ));
        let reference = match first.iter().find(|(e, _)| e == era) {
            Some((_, reference)) => *reference,
            None => {
                first.push((*era, per_flow));
                per_flow
            }
        };
        let misses = misses.map_or(String::new(), |misses| {
            format!(
                " {} | {} | {} |",
                misses.first_level_code, misses.code, misses.data
            )
        });
        let mispredicted = mispredicted.map_or(String::new(), |branches| {
            format!(" {} | {} |", branches.conditional, branches.indirect)
        });
        let code = counted
            .code_run
            .map_or(String::new(), |(kib, pages)| format!(" {kib} | {pages} |"));
        println!(
            "| {} | {} | {:.2} M | {:.2}× |{misses}{mispredicted}{code}",
            spec.label,
            era_name(*era),
            per_flow as f64 / 1e6,
            reference as f64 / per_flow as f64
        );
    }
    // Each breakdown asked for, by the index of its costs in a server's
    // `[by crate, by part, by function]`.
    type Table = fn(&[Breakdown<'_>], Columns) -> String;
    let tables: [(bool, &str, Table); 3] = [
        (options.by_crate, "crate", crate_table),
        (options.by_part, "part of a round", part_table),
        (
            options.by_function,
            "function of the runtime",
            function_table,
        ),
    ];
    for era in [Era::Modern, Era::Legacy] {
        for (index, (wanted, by, table)) in tables.iter().enumerate() {
            let servers: Vec<Breakdown<'_>> = breakdowns
                .iter()
                .filter(|(_, of_era, _)| *of_era == era)
                .map(|(label, _, costs)| (*label, &costs[index]))
                .collect();
            if *wanted && !servers.is_empty() {
                println!("\nper flow by {by}, {}:\n", era_name(era));
                print!("{}", table(&servers, Columns::of(&options)));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(text: &str) -> Result<Totals, String> {
        totals("test dump", text)
    }

    #[test]
    fn instructions_alone_have_no_miss_count() {
        let read = dump("events: Ir\nfn=(1) main\n0 5\ntotals: 1234\n").unwrap();
        assert_eq!(read.instructions, 1234);
        assert_eq!(read.cache_misses, None);
        assert_eq!(read.mispredicted, None);
    }

    /// With `--branch-sim` valgrind adds the branch events after the instructions; the cache
    /// events, when also simulated, come between.
    #[test]
    fn mispredicted_branches_are_read_conditional_and_indirect() {
        let alone = dump(
            "events: Ir Bc Bcm Bi Bim
totals: 900 80 7 30 4
",
        )
        .unwrap();
        assert_eq!(
            (alone.instructions, alone.mispredicted),
            (
                900,
                Some(Mispredicted {
                    conditional: 7,
                    indirect: 4
                })
            )
        );
        let with_caches = dump(
            "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n\
             totals: 900 1 2 3 4 5 6 7 8 80 9 30 5\n",
        )
        .unwrap();
        assert_eq!(
            with_caches.mispredicted,
            Some(Mispredicted {
                conditional: 9,
                indirect: 5
            })
        );
        assert!(with_caches.cache_misses.is_some());
        assert_eq!(
            with_caches.per_flow(3).mispredicted,
            Some(Mispredicted {
                conditional: 3,
                indirect: 1
            })
        );
    }

    #[test]
    fn misses_split_code_from_data_and_omitted_zeros_count() {
        let events = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n";
        let read = dump(&format!("{events}summary: 1000 1 2 3 4 5 60 70 80\n")).unwrap();
        assert_eq!(
            (read.instructions, read.cache_misses),
            (
                1000,
                Some(Misses {
                    first_level_code: 3,
                    code: 60,
                    data: 150
                })
            )
        );
        let trailing_zeros_left_off =
            dump(&format!("{events}totals: 1000 1 2 3 4 5 60\n")).unwrap();
        assert_eq!(
            trailing_zeros_left_off.cache_misses,
            Some(Misses {
                first_level_code: 3,
                code: 60,
                data: 0
            })
        );
    }

    #[test]
    fn the_simulated_last_level_is_chosen_or_one_mebibyte() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let server = ["--server", "a=true"];
        let plain = parse(args(&server).into_iter()).unwrap();
        assert_eq!(plain.last_level, None);
        let default = parse(args(&[&["--cache-sim"][..], &server].concat()).into_iter()).unwrap();
        assert_eq!(default.last_level, Some(1 << 20));
        let chosen =
            parse(args(&[&["--last-level", "524288"][..], &server].concat()).into_iter()).unwrap();
        assert_eq!(chosen.last_level, Some(512 * 1024));
        let between =
            parse(args(&[&["--last-level", "1179648"][..], &server].concat()).into_iter()).unwrap();
        assert_eq!(between.last_level, Some(18 * 64 * 1024));
        for refused in ["1000000", "32768", "0", "8388608", "lots"] {
            assert!(
                parse(args(&[&["--last-level", refused][..], &server].concat()).into_iter())
                    .is_err(),
                "{refused} was accepted"
            );
        }
    }

    #[test]
    fn branch_simulation_is_asked_of_valgrind_only_with_the_flag() {
        let command = |flags: &[&str]| {
            let args = flags
                .iter()
                .chain(&["--server", "a=srv"])
                .map(|a| a.to_string());
            let options = parse(args).unwrap();
            under_callgrind(&options.servers[0].0, "out", &options).command
        };
        assert!(command(&["--branch-sim"]).contains(&"--branch-sim=yes".to_owned()));
        assert!(
            !command(&[])
                .iter()
                .any(|arg| arg.starts_with("--branch-sim"))
        );
    }

    #[test]
    fn the_simulated_last_level_keeps_its_sets_and_adds_ways() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let geometry = |size: &str| {
            let options =
                parse(args(&["--last-level", size, "--server", "a=srv --flag"]).into_iter())
                    .unwrap();
            let command = under_callgrind(&options.servers[0].0, "out", &options).command;
            assert_eq!(command[command.len() - 2..], ["srv", "--flag"]);
            command
                .into_iter()
                .find(|arg| arg.starts_with("--LL="))
                .unwrap()
        };
        assert_eq!(geometry("1048576"), "--LL=1048576,16,64");
        assert_eq!(geometry("1179648"), "--LL=1179648,18,64");
        assert_eq!(geometry("65536"), "--LL=65536,1,64");
    }

    #[test]
    fn the_crate_table_puts_the_largest_differences_first() {
        let costs = |list: &[(&str, u64, u64)]| -> BTreeMap<String, Cost> {
            list.iter()
                .map(|&(name, instructions, code_misses)| {
                    let cost = Cost {
                        instructions,
                        code_misses,
                        code_lines: code_misses * 16,
                        code_pages: code_misses,
                    };
                    (name.to_owned(), cost)
                })
                .collect()
        };
        let mrtr = costs(&[("hyper", 900, 70), ("mrtr", 500, 160), ("serde", 100, 10)]);
        let rmcp = costs(&[("hyper", 800, 50), ("serde", 100, 10), ("rmcp", 50, 5)]);
        let simulated = Columns {
            simulated: true,
            footprint: false,
            in_lines: false,
        };
        let table = crate_table(&[("mrtr", &mrtr), ("rmcp", &rmcp)], simulated);
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(
            rows,
            [
                "| mrtr | 500 | 160 | 0 | 0 |",
                "| hyper | 900 | 70 | 800 | 50 |",
                "| rmcp | 0 | 0 | 50 | 5 |",
                "| serde | 100 | 10 | 100 | 10 |",
            ]
        );
        let plain = Columns {
            simulated: false,
            footprint: false,
            in_lines: false,
        };
        let alone = crate_table(&[("rmcp", &rmcp)], plain);
        assert_eq!(alone.lines().nth(2), Some("| hyper | 800 |"));
        // With the code run counted, rows rank by it and show it in KiB (16 lines a miss here).
        let counted = Columns {
            simulated: false,
            footprint: true,
            in_lines: false,
        };
        let table = crate_table(&[("mrtr", &mrtr), ("rmcp", &rmcp)], counted);
        assert!(table.starts_with("| crate | mrtr: instructions | mrtr: code run (KiB) |"));
        assert_eq!(table.lines().nth(2), Some("| mrtr | 500 | 160 | 0 | 0 |"));
        assert_eq!(
            table.lines().nth(3),
            Some("| hyper | 900 | 70 | 800 | 50 |")
        );
    }

    /// The runtime's functions: the largest first, at most `FUNCTION_ROWS` of them.
    #[test]
    fn the_function_table_lists_the_largest_runtime_functions() {
        let example: BTreeMap<String, Cost> = (1..=FUNCTION_ROWS as u64 + 5)
            .map(|i| {
                let cost = Cost {
                    instructions: 10 * i,
                    code_misses: i,
                    code_lines: 0,
                    code_pages: 0,
                };
                (format!("mrtr::f{i}"), cost)
            })
            .collect();
        let by_hand = BTreeMap::new();
        let simulated = Columns {
            simulated: true,
            footprint: false,
            in_lines: false,
        };
        let table = function_table(&[("example", &example), ("by hand", &by_hand)], simulated);
        let mut lines = table.lines();
        assert_eq!(
            lines.next(),
            Some(
                "| function | example: instructions | example: first-level code misses | \
                 by hand: instructions | by hand: first-level code misses |"
            )
        );
        let rows: Vec<&str> = lines.skip(1).collect();
        assert_eq!(rows.len(), FUNCTION_ROWS);
        let largest = FUNCTION_ROWS + 5;
        assert_eq!(
            rows[0],
            format!(
                "| mrtr::f{largest} | {} | {largest} | 0 | 0 |",
                10 * largest
            )
        );
        assert_eq!(rows[FUNCTION_ROWS - 1], "| mrtr::f6 | 60 | 6 | 0 | 0 |");
        // With the code run counted, a function's is in lines, not KiB.
        let counted = Columns {
            simulated: false,
            footprint: true,
            in_lines: false,
        };
        let mut with_lines = example.clone();
        with_lines.get_mut("mrtr::f1").unwrap().code_lines = 1_000;
        let table = function_table(&[("example", &with_lines)], counted);
        assert!(
            table.starts_with("| function | example: instructions | example: code run (lines) |")
        );
        assert_eq!(table.lines().nth(2), Some("| mrtr::f1 | 10 | 1000 |"));
        let args = ["--by-function", "--server", "a=true"].map(String::from);
        assert!(parse(args.into_iter()).unwrap().by_function);
    }

    #[test]
    fn a_dump_without_totals_is_an_error() {
        assert!(dump("events: Ir\n").is_err());
        assert!(dump("totals: 12\n").is_err());
    }
}
