//! The keys of the per-round counters, built once instead of every round.
//!
//! `metrics::counter!` with label values that are not literals builds its key on every call: a
//! `Vec` of labels and a hash of name and labels, then drops both, even when no recorder is
//! installed (the facade cannot tell). Every label of a per-round counter is a `&'static str`
//! (a handler's path, a step's name, an era), so there are only as many keys as handlers ×
//! steps, and each one is built and hashed once, kept for the life of the process, and handed
//! to whichever recorder is installed when the round ends (one installed later, or one set per
//! thread, still sees every count).

use std::cell::RefCell;
use std::sync::Mutex;

use metrics::{Key, Label, Level, Metadata};

/// What `counter!` in `observe` would pass.
static METADATA: Metadata<'static> =
    Metadata::new("mrtr::observe", Level::INFO, Some("mrtr::observe"));

/// Counts one on `name{labels}`.
pub(crate) fn increment<const N: usize>(
    name: &'static str,
    labels: [(&'static str, &'static str); N],
) {
    let key = key(name, &labels);
    metrics::with_recorder(|recorder| recorder.register_counter(key, &METADATA)).increment(1);
}

/// One counter's name and label values, as the call sites pass them.
struct Entry {
    name: &'static str,
    labels: Vec<(&'static str, &'static str)>,
    key: &'static Key,
}

impl Entry {
    fn is(&self, name: &'static str, labels: &[(&'static str, &'static str)], same: Same) -> bool {
        same(self.name, name)
            && self.labels.len() == labels.len()
            && self
                .labels
                .iter()
                .zip(labels)
                .all(|(a, b)| same(a.0, b.0) && same(a.1, b.1))
    }
}

type Same = fn(&str, &str) -> bool;

/// A call site passes the same strings every round, so a thread's list is searched by address
/// alone; equal strings at another address (another crate's copy of a path) find the shared
/// key by content, once.
fn same_address(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b)
}

fn same_content(a: &str, b: &str) -> bool {
    a == b
}

thread_local! {
    /// This thread's keys: a short list (one per handler and era, handler and step, kind)
    /// looked up without a lock.
    static NEAR: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Every key built in the process, so that a thread's first round of a handler finds the key
/// another thread built instead of leaking another copy.
static ALL: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn key(name: &'static str, labels: &[(&'static str, &'static str)]) -> &'static Key {
    NEAR.with_borrow_mut(|near| {
        if let Some(entry) = near
            .iter()
            .find(|entry| entry.is(name, labels, same_address))
        {
            return entry.key;
        }
        let key = shared_key(name, labels);
        near.push(Entry {
            name,
            labels: labels.to_vec(),
            key,
        });
        key
    })
}

#[cold]
fn shared_key(name: &'static str, labels: &[(&'static str, &'static str)]) -> &'static Key {
    let mut all = crate::unpoisoned::lock(&ALL);
    if let Some(entry) = all
        .iter()
        .find(|entry| entry.is(name, labels, same_content))
    {
        return entry.key;
    }
    let built = labels
        .iter()
        .map(|&(k, v)| Label::new(k, v))
        .collect::<Vec<_>>();
    // Leaked on purpose: one per distinct name and labels, all of them static strings of
    // the handlers compiled in.
    let key: &'static Key = Box::leak(Box::new(Key::from_parts(name, built)));
    all.push(Entry {
        name,
        labels: labels.to_vec(),
        key,
    });
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_labels_share_one_key_across_threads_and_others_get_their_own() {
        let here = key("mrtr_test_total", &[("handler", "a::b"), ("era", "legacy")]);
        let again = key("mrtr_test_total", &[("handler", "a::b"), ("era", "legacy")]);
        assert!(std::ptr::eq(here, again));
        // Equal strings at another address (another crate's copy of the path) are the same key.
        let copied = String::from("a::b").leak();
        assert!(std::ptr::eq(
            here,
            key("mrtr_test_total", &[("handler", copied), ("era", "legacy")])
        ));
        let there = std::thread::spawn(|| {
            key("mrtr_test_total", &[("handler", "a::b"), ("era", "legacy")]) as *const Key as usize
        })
        .join()
        .unwrap();
        assert_eq!(there, here as *const Key as usize);

        let other = key(
            "mrtr_test_total",
            &[("handler", "a::b"), ("era", "2026-07-28")],
        );
        assert!(!std::ptr::eq(here, other));
        assert_eq!(
            format!("{other:?}"),
            format!(
                "{:?}",
                Key::from_parts(
                    "mrtr_test_total",
                    vec![
                        Label::new("handler", "a::b"),
                        Label::new("era", "2026-07-28")
                    ]
                )
            )
        );
    }
}
