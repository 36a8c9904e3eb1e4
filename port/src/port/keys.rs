//! Ask keys: identifiers, unique in their handler, named after what they ask.

use std::collections::BTreeSet;

#[derive(Default)]
pub struct Keys {
    taken: BTreeSet<String>,
}

impl Keys {
    /// `base`, or `base_2`, `base_3`, ... when an earlier site of the handler took it.
    pub fn fresh(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "answer" } else { base };
        let mut key = base.to_string();
        let mut n = 2;
        while self.taken.contains(&key) {
            key = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(key.clone());
        key
    }
}

/// `ReleaseTarget` → `release_target`; `Vec<Choice>` → `choice` (the last path segment's own
/// name, or its innermost type argument's).
pub fn snake(ty: &str) -> String {
    let inner = ty
        .rsplit(['<', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(ty)
        .trim_end_matches('>');
    let mut out = String::new();
    for (i, c) in inner.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if c.is_alphanumeric() || c == '_' {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_after_the_type_and_made_unique() {
        assert_eq!(snake("ReleaseTarget"), "release_target");
        assert_eq!(snake("crate::forms::Confirm"), "confirm");
        let mut keys = Keys::default();
        assert_eq!(keys.fresh("confirm"), "confirm");
        assert_eq!(keys.fresh("confirm"), "confirm_2");
    }
}
