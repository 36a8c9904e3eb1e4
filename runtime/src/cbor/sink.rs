//! Where a token's bytes are written: a buffer, or a count of what a buffer would hold. One
//! writer for both (the claims layout and the JSON values inside it) keeps the size check and
//! the token in step.

pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Counts instead of writing: the size a continuation would seal to, before any of it is built.
impl Sink for usize {
    fn put(&mut self, bytes: &[u8]) {
        *self += bytes.len();
    }
}
