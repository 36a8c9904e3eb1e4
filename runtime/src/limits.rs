//! Size and shape limits on incoming `inputResponses`.
//!
//! The values are attacker input that the runtime keeps (answered keys are carried in the next
//! `requestState`) and decodes, so they are bounded before anything else looks at them.

use std::collections::BTreeMap;
use std::io;

use serde_json::Value;

use crate::error::MrtrError;

/// Bounds on what a client may send back in one round.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most keys in `inputResponses`.
    pub max_keys: usize,
    /// Deepest nesting of one response value: a scalar is 0, `{}` or `[]` is 1, `{"a":[]}` 2.
    pub max_depth: usize,
    /// Most bytes of `inputResponses` serialized as compact JSON.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_keys: 64,
            max_depth: 32,
            max_bytes: 1 << 20,
        }
    }
}

impl Limits {
    pub fn check(&self, responses: &BTreeMap<String, Value>) -> Result<(), MrtrError> {
        self.check_keys(responses.len())?;
        for value in responses.values() {
            if exceeds_depth(value, self.max_depth) {
                return Err(MrtrError::InvalidInputResponses(format!(
                    "an inputResponses value is nested deeper than {} levels",
                    self.max_depth
                )));
            }
        }
        // Depth is bounded now, so the recursive serializer cannot exhaust the stack.
        let mut counter = ByteCounter {
            bytes: 0,
            limit: self.max_bytes,
        };
        if serde_json::to_writer(&mut counter, responses).is_err() {
            return Err(MrtrError::InvalidInputResponses(format!(
                "inputResponses is larger than {} bytes",
                self.max_bytes
            )));
        }
        Ok(())
    }

    /// The key limit alone, from a count: the pre-scan counts the keys of `inputResponses`
    /// without decoding them.
    pub(crate) fn check_keys(&self, keys: usize) -> Result<(), MrtrError> {
        if keys > self.max_keys {
            return Err(MrtrError::InvalidInputResponses(format!(
                "{keys} keys in inputResponses; at most {} are accepted",
                self.max_keys
            )));
        }
        Ok(())
    }
}

/// Walks `value` with an explicit stack, so hostile nesting cannot overflow ours.
fn exceeds_depth(value: &Value, max_depth: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        let depth = depth + 1;
        if depth > max_depth {
            return true;
        }
        stack.extend(children.map(|child| (child, depth)));
    }
    false
}

/// Counts serialized bytes and stops the serializer at the limit instead of buffering.
struct ByteCounter {
    bytes: usize,
    limit: usize,
}

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len();
        if self.bytes > self.limit {
            return Err(io::Error::other("over the byte limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
