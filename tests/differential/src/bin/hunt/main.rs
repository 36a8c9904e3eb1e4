//! On-demand differential hunt: thousands of generated handlers with a new seed, checked by the
//! compile-free oracles, then built into scratch crates under `target/differential-hunt/` and
//! run on both eras; every finding is printed with its seed and a minimised reproducer.
//!
//! `cargo run -p mrtr-differential --release --bin hunt -- --seed <N|random|ci> --count 3000`
//! (`--scripts 3`; `--parts N`, default about 200 handlers a part; `--no-shrink`;
//! `--seed ci --count <ci::PROGRAMS>` rebuilds exactly the CI batch; `--only h3,h7` compiles
//! just those; `--oracles-only` skips compiling;
//! `--mrtr-root DIR` builds against another checkout of this workspace, e.g. an older commit,
//! which must hold a copy of `tests/differential` listed in its workspace members.)

mod scratch;
mod shrinking;

use std::collections::BTreeMap;
use std::time::Instant;

use mrtr_differential::ci;
use mrtr_differential::program::batch::CaseSpec;
use mrtr_differential::program::reject;

use scratch::Scratch;

struct Options {
    seed: u64,
    count: usize,
    scripts: usize,
    parts: usize,
    shrink: bool,
    /// Only these cases (by name), e.g. to rebuild one finding.
    only: Vec<String>,
    /// Stop after the compile-free oracles.
    oracles_only: bool,
}

fn options() -> Options {
    let mut o = Options {
        seed: ci::SEED,
        count: 3000,
        scripts: ci::SCRIPTS,
        parts: 0,
        shrink: true,
        only: Vec::new(),
        oracles_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--seed" => {
                o.seed = match value().as_str() {
                    "random" => std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_nanos() as u64,
                    "ci" => ci::SEED,
                    n => n
                        .parse()
                        .or_else(|_| u64::from_str_radix(n.trim_start_matches("0x"), 16))
                        .expect("a seed"),
                }
            }
            "--count" => o.count = value().parse().expect("a count"),
            "--scripts" => o.scripts = value().parse().expect("a count"),
            "--parts" => o.parts = value().parse().expect("a count"),
            "--no-shrink" => o.shrink = false,
            "--oracles-only" => o.oracles_only = true,
            "--mrtr-root" => scratch::set_dependency_root(value().into()),
            "--only" => o.only = value().split(',').map(str::to_owned).collect(),
            other => panic!("unknown flag {other}; see the module docs"),
        }
    }
    o
}

fn main() {
    let mut o = options();
    let started = Instant::now();
    println!(
        "hunt: seed {:#x} ({}), {} programs accepted by the macro, {} scripts each",
        o.seed, o.seed, o.count, o.scripts
    );

    // Compile-free oracles: the macro's rejections and its carried sets.
    let mut cases = Vec::new();
    let mut streams = BTreeMap::new();
    let mut rejected: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut carry: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut index = 0;
    let mut rejected_programs = 0;
    while cases.len() < o.count {
        let (case, stream) = CaseSpec::seeded(o.seed, index, o.scripts);
        index += 1;
        let messages = reject::rejections(&case.program);
        if !messages.is_empty() {
            rejected_programs += 1;
            for m in messages {
                rejected
                    .entry(reject::classify(&m))
                    .or_default()
                    .push(case.name.clone());
            }
            continue;
        }
        if let Ok(mismatches) = reject::carry_mismatches(&case.program) {
            for m in mismatches {
                carry
                    .entry(shrinking::carry_signature(&m))
                    .or_default()
                    .push(case.name.clone());
            }
        }
        streams.insert(case.name.clone(), stream);
        if o.only.is_empty() || o.only.contains(&case.name) {
            cases.push(case);
        } else {
            cases.push(CaseSpec {
                scripts: Vec::new(),
                ..case
            });
        }
    }
    println!("\n== rejections of valid programs ({index} generated, {rejected_programs} rejected)");
    for (class, names) in &rejected {
        println!("  x{:<5} {class}  (e.g. {})", names.len(), names[0]);
        if o.shrink {
            let stream = shrinking::seeded_stream_of(o.seed, &names[0]);
            let class = class.clone();
            let min = shrinking::in_process(&stream, |p| {
                reject::rejections(p)
                    .iter()
                    .any(|m| reject::classify(m) == class)
            });
            println!("{}", shrinking::indent(&min));
        }
    }
    println!("\n== carried sets against the liveness oracle");
    for (signature, names) in &carry {
        println!("  x{:<5} {signature}  ({names:?})", names.len());
        if o.shrink {
            let stream = &streams[&names[0]];
            let signature = signature.clone();
            let min = shrinking::in_process(stream, |p| {
                reject::rejections(p).is_empty()
                    && reject::carry_mismatches(p).is_ok_and(|ms| {
                        ms.iter()
                            .any(|m| shrinking::carry_signature(m) == signature)
                    })
            });
            println!("{}", shrinking::indent(&min));
        }
    }

    // Compiled: build, attribute compile errors, run both eras against the reference.
    if o.oracles_only {
        return;
    }
    // rustc's time and memory grow faster than linearly with a crate's size: parts of about
    // 200 handlers build fastest here (and two at a time on two cores).
    if o.parts == 0 {
        o.parts = o.count.div_ceil(200).max(2);
    }
    // `--only` keeps the oracles' numbering and compiles just the named cases.
    cases.retain(|c| !c.scripts.is_empty());
    let mut scratch = Scratch::new(&format!("seed-{:x}", o.seed), cases.clone(), o.parts);
    let build_started = Instant::now();
    let broken = scratch.build();
    println!(
        "\n== compiled {} handlers in {:.0?} ({} do not compile)",
        cases.len(),
        build_started.elapsed(),
        broken.len()
    );
    let mut by_code: BTreeMap<String, Vec<(&String, &scratch::CompileError)>> = BTreeMap::new();
    for (case, errors) in &broken {
        by_code
            .entry(errors[0].code.clone())
            .or_default()
            .push((case, &errors[0]));
    }
    for (code, hits) in &by_code {
        let names: Vec<&str> = hits.iter().map(|(c, _)| c.as_str()).collect();
        println!(
            "  x{:<5} {code}: {}  ({names:?})",
            hits.len(),
            hits[0].1.message
        );
        println!("{}", shrinking::indent(&hits[0].1.rendered));
        if o.shrink {
            let case = hits[0].0;
            println!(
                "{}",
                shrinking::compiled_compile_error(o.seed, case, &streams[case], code)
            );
        }
    }
    let run_started = Instant::now();
    let failures = scratch.run();
    println!(
        "\n== ran {} runs (handler x script) in {:.0?}: {} disagree",
        scratch.runs(),
        run_started.elapsed(),
        failures.len()
    );
    let mut by_signature: BTreeMap<&str, Vec<&(String, u64, String, String)>> = BTreeMap::new();
    for f in &failures {
        by_signature.entry(f.2.as_str()).or_default().push(f);
    }
    for (signature, hits) in &by_signature {
        let names: Vec<&str> = hits.iter().map(|f| f.0.as_str()).collect();
        println!("  x{:<5} {signature}  ({names:?})", hits.len());
        let (case, script, _, report) = hits[0];
        println!("{}", shrinking::indent(report));
        if o.shrink {
            println!(
                "{}",
                shrinking::compiled_disagreement(o.seed, case, &streams[case], *script, signature)
            );
        }
    }
    println!(
        "\nhunt: seed {:#x}: {} rejected, {} carry mismatches, {} compile failures, {} disagreeing runs ({:.0?})",
        o.seed,
        rejected_programs,
        carry.values().map(Vec::len).sum::<usize>(),
        broken.len(),
        failures.len(),
        started.elapsed()
    );
}
