//! What the port tells the user: per file what it did, every site left for them, one summary.

use std::fmt::Write;

use crate::source::Source;

/// A place in a file, with what is there and what to write instead.
#[derive(Clone, Debug)]
pub struct Site {
    pub line: usize,
    pub column: usize,
    pub what: String,
    pub suggestion: String,
}

impl Site {
    pub fn at(src: &Source, offset: usize, what: String, suggestion: impl Into<String>) -> Self {
        let (line, column) = src.line_col(offset);
        Site {
            line,
            column,
            what,
            suggestion: suggestion.into(),
        }
    }
}

/// A handler (`#[mrtr_tool]`) or helper (`#[mrtr_helper]`) and the keys of its asks.
#[derive(Debug)]
pub struct HandlerReport {
    pub name: String,
    pub helper: bool,
    pub asks: Vec<String>,
}

#[derive(Debug, Default)]
pub struct FileReport {
    pub handlers: Vec<HandlerReport>,
    /// Plain functions that only probed capabilities and now take `&ClientCaps`.
    pub probes: Vec<String>,
    pub dispatch: Vec<String>,
    pub derives: Vec<String>,
    pub manual: Vec<Site>,
    pub notes: Vec<Site>,
    /// Elicited types this file does not define: manual work unless another file of the run
    /// defines them (and gets the derive).
    pub foreign_types: Vec<(String, Site)>,
    /// Elicited types (this file's or another's) defined here.
    pub defined_types: Vec<String>,
}

impl FileReport {
    pub fn handler_count(&self) -> usize {
        self.handlers.iter().filter(|h| !h.helper).count()
    }

    /// Sites left for the user.
    pub fn manual_count(&self) -> usize {
        self.manual.len() + self.foreign_types.len()
    }

    pub fn ask_count(&self) -> usize {
        self.handlers.iter().map(|h| h.asks.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
            && self.probes.is_empty()
            && self.dispatch.is_empty()
            && self.derives.is_empty()
            && self.manual.is_empty()
            && self.notes.is_empty()
            && self.foreign_types.is_empty()
    }

    /// The report for one file, `path` as given on the command line.
    pub fn render(&self, path: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{path}");
        for h in &self.handlers {
            let what = if h.helper {
                "helper marked #[mrtr_helper]"
            } else {
                "handler ported"
            };
            let asks = if h.asks.is_empty() {
                "no asks".to_string()
            } else {
                format!("asks: {}", h.asks.join(", "))
            };
            let _ = writeln!(out, "  {what}: {} ({asks})", h.name);
        }
        for p in &self.probes {
            let _ = writeln!(out, "  capability check now reads ClientCaps: {p}");
        }
        for d in &self.dispatch {
            let _ = writeln!(out, "  dispatch arm now mrtr::call: {d}");
        }
        for d in &self.derives {
            let _ = writeln!(out, "  derive(mrtr::Elicit) added: {d}");
        }
        let mut manual: Vec<&Site> = self
            .manual
            .iter()
            .chain(self.foreign_types.iter().map(|(_, s)| s))
            .collect();
        manual.sort_by_key(|s| (s.line, s.column));
        for s in manual {
            let _ = writeln!(
                out,
                "{path}:{}:{}: {}; suggested change: {}",
                s.line, s.column, s.what, s.suggestion
            );
        }
        for s in &self.notes {
            let _ = writeln!(
                out,
                "{path}:{}:{}: note: {}; {}",
                s.line, s.column, s.what, s.suggestion
            );
        }
        out
    }
}

/// `ported N handlers (M asks) in F files; K sites need manual work`.
pub fn summary(reports: &[FileReport]) -> String {
    let handlers: usize = reports.iter().map(FileReport::handler_count).sum();
    let asks: usize = reports.iter().map(FileReport::ask_count).sum();
    let files = reports
        .iter()
        .filter(|r| !r.handlers.is_empty() || !r.probes.is_empty() || !r.dispatch.is_empty())
        .count();
    let manual: usize = reports.iter().map(FileReport::manual_count).sum();
    format!(
        "ported {handlers} handlers ({asks} asks) in {files} files; {manual} sites need manual work"
    )
}
