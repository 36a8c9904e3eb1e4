//! `mrtr-port [--check | --diff] [--no-manifest] PATH...`: see `mrtr_port::cli::USAGE`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;

use mrtr_port::cli::{self, Mode};
use mrtr_port::{
    Elsewhere, FileReport, Ported, diff, discover, manifest, port_text_in, summary, write,
};

const CHECK_FOUND_WORK: u8 = 1;
const MANUAL_WORK: u8 = 2;
const BAD_INPUT: u8 = 3;

/// Helper chains across files settle in as many passes as the chain is long; past this the
/// last pass stands.
const MAX_PASSES: usize = 8;

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(why) if why.is_empty() => {
            println!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("error: {why}\n\n{}", cli::USAGE);
            return ExitCode::from(BAD_INPUT);
        }
    };
    let files = match discover::rust_files(&options.paths) {
        Ok(f) => f,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(BAD_INPUT);
        }
    };

    // Everything is read and ported in memory first: a file that does not parse stops the
    // run before anything is written.
    let mut texts: Vec<(PathBuf, String, String)> = Vec::new();
    let mut bad = false;
    for path in &files {
        match std::fs::read_to_string(path) {
            Ok(text) => texts.push((path.clone(), text, manifest::edition_of(path))),
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                bad = true;
            }
        }
    }
    // Files depend on each other: a helper in one asks for handlers in another, a type
    // elicited in one is defined in another. Each pass tells every file what the previous pass
    // found in the others, until nothing new is found.
    let mut elsewhere = Elsewhere::default();
    let mut ported = port_all(&texts, &elsewhere, &mut bad);
    for _ in 0..MAX_PASSES {
        if bad {
            break;
        }
        let next = what_the_others_found(&ported);
        if next == elsewhere {
            break;
        }
        elsewhere = next;
        ported = port_all(&texts, &elsewhere, &mut bad);
    }
    let defined: BTreeSet<String> = ported
        .iter()
        .flat_map(|(_, p)| p.report.defined_types.iter().cloned())
        .collect();
    for (_, p) in &mut ported {
        p.report
            .foreign_types
            .retain(|(name, _)| !defined.contains(name));
    }
    if bad {
        eprintln!("error: nothing was written");
        return ExitCode::from(BAD_INPUT);
    }
    let mut changed: Vec<(PathBuf, String, String)> = Vec::new();
    let mut reports: Vec<(String, FileReport)> = Vec::new();
    for ((path, text, _), (shown, p)) in texts.iter().zip(ported) {
        if p.text != *text {
            changed.push((path.clone(), text.clone(), p.text));
        }
        reports.push((shown, p.report));
    }

    let mut manifests: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    if options.manifest {
        for (path, _, _) in &changed {
            let Some(toml) = manifest::of(path) else {
                continue;
            };
            if manifests.contains_key(&toml) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&toml)
                && let Some(new) = manifest::with_mrtr(&text)
            {
                manifests.insert(toml, (text, new));
            }
        }
    }

    let mut all_changes: Vec<(PathBuf, String, String)> = changed;
    all_changes.extend(manifests.into_iter().map(|(p, (a, b))| (p, a, b)));
    match options.mode {
        Mode::Diff => {
            for (path, before, after) in &all_changes {
                print!(
                    "{}",
                    diff::unified(&path.display().to_string(), before, after)
                );
            }
        }
        Mode::Check => {
            for (path, _, _) in &all_changes {
                eprintln!("would change: {}", path.display());
            }
        }
        Mode::Write => {
            for (path, _, after) in &all_changes {
                if let Err(e) = write::replace(path, after) {
                    eprintln!("error: {}: cannot write: {e}", path.display());
                    return ExitCode::from(BAD_INPUT);
                }
            }
        }
    }

    for (path, report) in &reports {
        if !report.is_empty() {
            eprint!("{}", report.render(path));
        }
    }
    let reports: Vec<FileReport> = reports.into_iter().map(|(_, r)| r).collect();
    eprintln!("{}", summary(&reports));
    let manual = reports.iter().any(|r| r.manual_count() > 0);
    if options.mode == Mode::Check && !all_changes.is_empty() {
        ExitCode::from(CHECK_FOUND_WORK)
    } else if manual {
        ExitCode::from(MANUAL_WORK)
    } else {
        ExitCode::SUCCESS
    }
}

/// Ports every file; a file that does not parse is reported (`file:line:col`) and sets `bad`.
fn port_all(
    texts: &[(PathBuf, String, String)],
    elsewhere: &Elsewhere,
    bad: &mut bool,
) -> Vec<(String, Ported)> {
    let mut out = Vec::new();
    for (path, text, edition) in texts {
        let shown = path.display().to_string();
        match port_text_in(text, elsewhere, edition) {
            Ok(ported) => out.push((shown, ported)),
            Err(failure) => {
                eprintln!(
                    "error: {shown}:{}:{}: cannot parse: {}",
                    failure.line, failure.column, failure.message
                );
                *bad = true;
            }
        }
    }
    out
}

/// The types each file elicits without defining, and the functions each file changed.
fn what_the_others_found(ported: &[(String, Ported)]) -> Elsewhere {
    let mut found = Elsewhere::default();
    for (_, p) in ported {
        found
            .elicited
            .extend(p.report.foreign_types.iter().map(|(name, _)| name.clone()));
        for (name, summary) in &p.summaries {
            found
                .functions
                .entry(name.clone())
                .or_insert_with(|| summary.clone());
        }
    }
    found
}
