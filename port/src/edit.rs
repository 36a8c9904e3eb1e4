//! Byte-range edits on the original text: everything outside them stays byte-identical.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Edits {
    edits: Vec<Edit>,
}

impl Edits {
    pub fn replace(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.edits.push(Edit {
            range,
            text: text.into(),
        });
    }

    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.replace(at..at, text);
    }

    pub fn delete(&mut self, range: Range<usize>) {
        self.replace(range, "");
    }

    /// Whether some edit writes `text` (the `use` line imports only what the edits use).
    pub fn mentions(&self, text: &str) -> bool {
        self.edits.iter().any(|e| e.text.contains(text))
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Whether some edit already touches `range` (an inner site inside a rewritten one).
    pub fn overlaps(&self, range: &Range<usize>) -> bool {
        self.edits
            .iter()
            .any(|e| e.range.start < range.end && range.start < e.range.end)
    }

    /// The text with every edit applied. Two edits on overlapping bytes would mean two parts of
    /// the port disagree about the same code, so that is an error, never a guess. Insertions at
    /// the same offset keep the order they were made in.
    pub fn apply(mut self, text: &str) -> Result<String, String> {
        self.edits.sort_by_key(|e| (e.range.start, e.range.end));
        let mut out = String::with_capacity(text.len() + 256);
        let mut at = 0;
        for edit in &self.edits {
            if edit.range.start < at {
                return Err(format!(
                    "internal error: overlapping edits at bytes {}..{}",
                    edit.range.start, edit.range.end
                ));
            }
            out.push_str(&text[at..edit.range.start]);
            out.push_str(&edit.text);
            at = edit.range.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_offset_order_and_keep_the_rest() {
        let mut edits = Edits::default();
        edits.replace(6..11, "there");
        edits.insert(0, ">> ");
        assert_eq!(edits.apply("hello world!").unwrap(), ">> hello there!");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let mut edits = Edits::default();
        edits.replace(0..5, "a");
        edits.replace(3..8, "b");
        assert!(edits.apply("0123456789").is_err());
    }
}
