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
    port_text_in(text, &Elsewhere::default())
}

/// [`port_text`] for one file of a crate: `elsewhere` says which types other files elicit
/// (derived here if defined here) and which of their functions ask or changed parameters (so
/// calls to them here are rewritten too).
pub fn port_text_in(text: &str, elsewhere: &Elsewhere) -> Result<Ported, ParseFailure> {
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
            let new = format::keep_formatted(text, new);
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
