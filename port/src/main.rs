//! `mrtr-port [--check | --diff] [--no-manifest] PATH...`: see `mrtr_port::cli::USAGE`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use mrtr_port::cli::{self, Mode};
use mrtr_port::{FileReport, diff, discover, manifest, port_text, summary, write};

const CHECK_FOUND_WORK: u8 = 1;
const MANUAL_WORK: u8 = 2;
const BAD_INPUT: u8 = 3;

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
    let mut changed: Vec<(PathBuf, String, String)> = Vec::new();
    let mut reports: Vec<(String, FileReport)> = Vec::new();
    let mut bad = false;
    for path in &files {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {shown}: {e}");
                bad = true;
                continue;
            }
        };
        match port_text(&text) {
            Ok(ported) => {
                if ported.text != text {
                    changed.push((path.clone(), text, ported.text));
                }
                reports.push((shown, ported.report));
            }
            Err(failure) => {
                eprintln!(
                    "error: {shown}:{}:{}: cannot parse: {}",
                    failure.line, failure.column, failure.message
                );
                bad = true;
            }
        }
    }
    if bad {
        eprintln!("error: nothing was written");
        return ExitCode::from(BAD_INPUT);
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
    let manual = reports.iter().any(|r| !r.manual.is_empty());
    if options.mode == Mode::Check && !all_changes.is_empty() {
        ExitCode::from(CHECK_FOUND_WORK)
    } else if manual {
        ExitCode::from(MANUAL_WORK)
    } else {
        ExitCode::SUCCESS
    }
}
