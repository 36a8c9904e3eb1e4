//! `mrtr-port`: rewrites legacy rmcp servers, whose handlers await client requests on the
//! peer, into `mrtr` handlers whose requests are `ask!` points.
//!
//! The library is the port of one file's text ([`port_text`]); the binary walks paths, writes
//! files and prints the report.

pub mod cli;
pub mod diff;
pub mod discover;
pub mod edit;
pub mod format;
pub mod manifest;
mod port;
mod prune;
pub mod report;
pub mod source;
pub mod write;

pub use report::{FileReport, summary};
pub use source::ParseFailure;

/// One file, ported: its new text and what was done to it.
pub struct Ported {
    pub text: String,
    pub report: FileReport,
    /// The file's functions that ask or whose peer parameters changed, for the other files.
    pub summaries: std::collections::BTreeMap<String, Summary>,
}

pub use port::{Elsewhere, Summary};

/// Ports the text of one Rust file on its own. The text is returned unchanged (with the report
/// saying why) if the edits could not be applied.
pub fn port_text(text: &str) -> Result<Ported, ParseFailure> {
    port_text_in(text, &Elsewhere::default(), DEFAULT_EDITION)
}

/// The edition rustfmt formats by when the caller does not know the file's.
pub const DEFAULT_EDITION: &str = "2024";

/// [`port_text`] for one file of a crate: `elsewhere` says which types other files elicit
/// (derived here if defined here) and which of their functions ask or changed parameters (so
/// calls to them here are rewritten too); `edition` is the crate's, for rustfmt.
pub fn port_text_in(
    text: &str,
    elsewhere: &Elsewhere,
    edition: &str,
) -> Result<Ported, ParseFailure> {
    // syn drops a byte-order mark and a `#!` line before parsing, and its offsets then count
    // from after them: port the rest and put them back.
    let (prologue, body) = source::prologue(text);
    if !prologue.is_empty() {
        let mut ported = port_text_in(body, elsewhere, edition)?;
        ported.text.insert_str(0, prologue);
        return Ok(ported);
    }
    let source = source::Source::parse(text.to_string())?;
    let port::FilePort {
        edits,
        mut report,
        summaries,
    } = port::port(&source, elsewhere);
    if edits.is_empty() {
        return Ok(Ported {
            text: text.to_string(),
            report,
            summaries,
        });
    }
    match edits.apply(text) {
        Ok(new) => {
            let new = prune::prune(&source, &new);
            // Keep the file rustfmt-clean if it was.
            let new = format::keep_formatted(text, new, edition);
            Ok(Ported {
                text: new,
                report,
                summaries,
            })
        }
        Err(why) => {
            report.manual.push(report::Site {
                line: 1,
                column: 1,
                what: why,
                suggestion: "port this file by hand and report the case".into(),
            });
            Ok(Ported {
                text: text.to_string(),
                report,
                summaries,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGACY: &str = "use rmcp::{ErrorData, Peer, RoleServer, tool};\nuse rmcp::model::CallToolResult;\nstruct S;\nimpl S {\n    #[tool(description = \"t\")]\n    async fn t(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {\n        let roots = match peer.list_roots().await {\n            Ok(r) => r.roots.len(),\n            Err(_) => 0,\n        };\n        Ok(CallToolResult::success(vec![]))\n    }\n}\n";

    #[test]
    fn a_byte_order_mark_and_a_shebang_line_are_kept_and_do_not_shift_the_edits() {
        let plain = port_text(LEGACY).unwrap().text;
        assert!(plain.contains("match ask!(roots: roots()) {"), "{plain}");
        for prologue in [
            "\u{feff}",
            "#!/usr/bin/env run-cargo-script",
            "\u{feff}#!/bin/x",
        ] {
            let ported = port_text(&format!("{prologue}\n{LEGACY}")).unwrap();
            assert_eq!(ported.text, format!("{prologue}\n{plain}"));
        }
    }
}
