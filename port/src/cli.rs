//! `mrtr-port [--check | --diff] [--no-manifest] PATH...`

use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Rewrite the files in place.
    Write,
    /// Print a unified diff; change nothing.
    Diff,
    /// Change nothing; exit 1 if anything would change.
    Check,
}

#[derive(Debug)]
pub struct Options {
    pub mode: Mode,
    pub manifest: bool,
    pub paths: Vec<PathBuf>,
}

pub const USAGE: &str = "usage: mrtr-port [--check | --diff] [--no-manifest] PATH...

Ports legacy rmcp handlers (awaited peer requests) to mrtr (`#[mrtr_tool]`, `ask!`).
PATH is a Rust file or a directory (every *.rs below it). Rewrites in place by default.

  --check        change nothing; exit 1 if anything would change
  --diff         print a unified diff; change nothing
  --no-manifest  do not add the `mrtr` dependency to Cargo.toml

exit: 0 ported (or nothing to port), 1 --check found work, 2 some sites need manual work,
      3 bad input (missing path, a file that does not parse; nothing is written)";

pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut mode = Mode::Write;
    let mut manifest = true;
    let mut paths = Vec::new();
    let mut only_paths = false;
    for arg in args {
        match arg.as_str() {
            _ if only_paths => paths.push(PathBuf::from(arg)),
            "--" => only_paths = true,
            "--check" | "--diff" if mode != Mode::Write => {
                return Err("--check and --diff cannot be combined".into());
            }
            "--check" => mode = Mode::Check,
            "--diff" => mode = Mode::Diff,
            "--no-manifest" => manifest = false,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.is_empty() {
        return Err("no PATH given".into());
    }
    Ok(Options {
        mode,
        manifest,
        paths,
    })
}
