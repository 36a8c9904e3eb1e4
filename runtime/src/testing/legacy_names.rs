//! Naming a live legacy request after the `ask!` key that sent it.
//!
//! On 2026-07-28 every `inputRequests` entry carries its key. On a legacy session an ask is a
//! real `elicitation/create` (or sampling, roots) request and its key is not on the wire, so a
//! script written per key needs the client to name the request. It tries, in order:
//!
//! 1. a message hint ([`ScriptedClient::legacy_message`](super::ScriptedClient::legacy_message)):
//!    the first hint whose text the request contains names it;
//! 2. the order of asks of a 2026-07-28 run of the same call
//!    ([`ScriptedClient::legacy_order_from`](super::ScriptedClient::legacy_order_from), done by
//!    [`run_both`](super::run_both)): the first not yet used ask of the same method with the same
//!    text, else the first not yet used ask of the same method;
//! 3. the script itself: if exactly one key is scripted with answers that fit the method, the
//!    request is that key.
//!
//! Otherwise the request stays unnamed and only text rules can answer it.

use super::received::Received;

#[derive(Clone, Debug, Default)]
pub(super) struct LegacyNames {
    /// `(key, needle)`: a request whose text contains `needle` is `key`.
    hints: Vec<(String, String)>,
    /// Asks of a 2026-07-28 run, in order, with whether a live request took the name yet.
    learned: Vec<(Received, bool)>,
}

impl LegacyNames {
    pub(super) fn hint(&mut self, key: &str, needle: &str) {
        self.hints.push((key.to_owned(), needle.to_owned()));
    }

    pub(super) fn learn(&mut self, received: &[Received]) {
        self.learned = received
            .iter()
            .filter(|ask| ask.key.is_some())
            .map(|ask| (ask.clone(), false))
            .collect();
    }

    /// The same names for another run: every learned ask unused again.
    pub(super) fn fresh(&self) -> Self {
        LegacyNames {
            hints: self.hints.clone(),
            learned: self
                .learned
                .iter()
                .map(|(ask, _)| (ask.clone(), false))
                .collect(),
        }
    }

    pub(super) fn name<'k>(
        &mut self,
        request: &Received,
        scripted_keys: impl Iterator<Item = &'k str>,
    ) -> Option<String> {
        if let Some((key, _)) = self
            .hints
            .iter()
            .find(|(_, needle)| !request.text.is_empty() && request.text.contains(needle.as_str()))
        {
            return Some(key.clone());
        }
        if let Some(key) = self.take_learned(request) {
            return Some(key);
        }
        let mut keys: Vec<&str> = scripted_keys.collect();
        keys.sort_unstable();
        keys.dedup();
        match keys.as_slice() {
            [only] => Some((*only).to_owned()),
            _ => None,
        }
    }

    fn take_learned(&mut self, request: &Received) -> Option<String> {
        let unused_same_method =
            |(ask, used): &&mut (Received, bool)| !*used && ask.method == request.method;
        let position = self
            .learned
            .iter_mut()
            .position(|entry| unused_same_method(&entry) && entry.0.text == request.text)
            .or_else(|| {
                self.learned
                    .iter_mut()
                    .position(|entry| unused_same_method(&entry))
            })?;
        let (ask, used) = &mut self.learned[position];
        *used = true;
        ask.key.clone()
    }
}
