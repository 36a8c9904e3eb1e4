//! The asks of one step by wire key: what a round registers, a continuation carries and the
//! next `input_required` re-issues.
//!
//! A step asks one or two things, so the asks are a vector kept in key order rather than a
//! `BTreeMap`, whose first node takes 808 bytes for a single entry: that allocation, made on
//! every round that asks and again on every round that opens a continuation, sat in the
//! allocator's costly mid-size range.

use crate::request::InputRequest;

/// Input requests by wire key, iterated in key order (the order they are sealed in).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Asks(Vec<(String, InputRequest)>);

impl Asks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the ask under `key`; returns the one it replaced.
    pub fn insert(&mut self, key: String, request: InputRequest) -> Option<InputRequest> {
        match self.position(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, request)),
            Err(at) => {
                self.0.insert(at, (key, request));
                None
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&InputRequest> {
        let at = self.position(key).ok()?;
        Some(&self.0[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The asks in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &InputRequest)> {
        self.into_iter()
    }

    /// The asks themselves, in key order, to change in place.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut InputRequest> {
        self.0.iter_mut().map(|(_, request)| request)
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(key, _)| key)
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(held, _)| held.as_str().cmp(key))
    }
}

impl<'a> IntoIterator for &'a Asks {
    type Item = (&'a String, &'a InputRequest);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, InputRequest)>,
        fn(&'a (String, InputRequest)) -> (&'a String, &'a InputRequest),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(key, request)| (key, request))
    }
}

/// The asks by value, in key order.
impl IntoIterator for Asks {
    type Item = (String, InputRequest);
    type IntoIter = std::vec::IntoIter<(String, InputRequest)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromIterator<(String, InputRequest)> for Asks {
    /// Later entries replace earlier ones under the same key, as in a map.
    fn from_iter<I: IntoIterator<Item = (String, InputRequest)>>(entries: I) -> Self {
        let mut asks = Asks::new();
        for (key, request) in entries {
            asks.insert(key, request);
        }
        asks
    }
}

impl<const N: usize> From<[(String, InputRequest); N]> for Asks {
    fn from(entries: [(String, InputRequest); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl From<std::collections::BTreeMap<String, InputRequest>> for Asks {
    fn from(map: std::collections::BTreeMap<String, InputRequest>) -> Self {
        // Already in key order and without duplicates.
        Asks(map.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::request::InputMethod;

    fn request(n: u8) -> InputRequest {
        InputRequest::new(InputMethod::Roots, Some(serde_json::json!({ "n": n })))
    }

    proptest! {
        /// Inserts, replacements and lookups answer as a `BTreeMap` does, and iteration runs in
        /// the same key order (the order a continuation is sealed in).
        #[test]
        fn asks_behave_as_a_map_in_key_order(
            ops in proptest::collection::vec(("[a-d]{1,2}", any::<u8>()), 0..24)
        ) {
            let mut asks = Asks::new();
            let mut map = BTreeMap::new();
            for (key, n) in ops {
                prop_assert_eq!(
                    asks.insert(key.clone(), request(n)),
                    map.insert(key.clone(), request(n))
                );
                prop_assert_eq!(asks.get(&key), map.get(&key));
                prop_assert_eq!(asks.len(), map.len());
            }
            let ordered: Vec<(&String, &InputRequest)> = asks.iter().collect();
            let expected: Vec<(&String, &InputRequest)> = map.iter().collect();
            prop_assert_eq!(ordered, expected);
            prop_assert!(!asks.contains_key("zz"));
            prop_assert_eq!(Asks::from(map.clone()), asks.clone());
            prop_assert_eq!(map.into_iter().collect::<Asks>(), asks);
        }
    }
}
