//! The port's own edits are not formatted (an `ask!` replaces a multi-line request on one
//! line); a file that rustfmt left unchanged before the port is run through rustfmt again, a
//! file that was not is left as the user keeps it.

use std::io::Write;
use std::process::{Command, Stdio};

/// `rustfmt`'s output for `text`, or `None` if rustfmt is missing or refuses the text.
fn rustfmt(text: &str, edition: &str) -> Option<String> {
    let mut child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", edition, "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).ok())
        .flatten()
}

pub fn keep_formatted(before: &str, after: String, edition: &str) -> String {
    if rustfmt(before, edition).as_deref() != Some(before) {
        return after;
    }
    rustfmt(&after, edition).unwrap_or(after)
}
