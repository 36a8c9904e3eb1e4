//! A file's text beside its syntax tree, and the byte offsets that tie the two together.

use std::ops::Range;

use proc_macro2::Span;
use syn::spanned::Spanned;

/// One parsed Rust file. Every edit is a byte range of `text`, found through the spans of `file`.
pub struct Source {
    pub text: String,
    pub file: syn::File,
}

/// A file that does not parse: where, and rustc-like wording of why.
#[derive(Debug)]
pub struct ParseFailure {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Source {
    pub fn parse(text: String) -> Result<Self, ParseFailure> {
        match syn::parse_file(&text) {
            Ok(file) => Ok(Source { text, file }),
            Err(error) => {
                let start = error.span().start();
                Err(ParseFailure {
                    line: start.line,
                    column: start.column + 1,
                    message: error.to_string(),
                })
            }
        }
    }

    /// The source text a node was parsed from, exactly as written.
    pub fn text_of(&self, node: &impl Spanned) -> &str {
        &self.text[range(node)]
    }

    /// 1-based line and column of a byte offset, as compilers print them.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// The whitespace a line starts with: generated lines are indented like their neighbours.
    pub fn indent_at(&self, offset: usize) -> &str {
        let start = self.line_start(offset);
        let rest = &self.text[start..];
        let width = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        &self.text[start..start + width]
    }

    pub fn line_start(&self, offset: usize) -> usize {
        self.text[..offset].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Widens `range` to whole lines when nothing but whitespace shares them, so a deleted
    /// statement or arm leaves no blank line behind.
    pub fn whole_lines(&self, range: Range<usize>) -> Range<usize> {
        let start = self.line_start(range.start);
        if !self.text[start..range.start].trim().is_empty() {
            return range;
        }
        let end = match self.text[range.end..].find('\n') {
            Some(i) if self.text[range.end..range.end + i].trim().is_empty() => range.end + i + 1,
            None if self.text[range.end..].trim().is_empty() => self.text.len(),
            _ => return range,
        };
        start..end
    }
}

/// What `syn::parse_file` skips before its first offset: a byte-order mark, and a `#!` line
/// that is not an inner attribute (`#![..]`). The line's newline stays in the rest, so line
/// numbers count as in the file.
pub fn prologue(text: &str) -> (&str, &str) {
    let mut end = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = &text[end..];
    if rest.starts_with("#!") && !rest[2..].trim_start().starts_with('[') {
        end += rest.find('\n').unwrap_or(rest.len());
    }
    text.split_at(end)
}

pub fn range(node: &impl Spanned) -> Range<usize> {
    span_range(node.span())
}

pub fn span_range(span: Span) -> Range<usize> {
    span.byte_range()
}
