//! The capabilities each thread read last, by the JSON they were declared in.
//!
//! On 2026-07-28 every request declares its capabilities in `_meta`, and a client declares the
//! same ones on every request. rmcp reads them by cloning that JSON and decoding it into its
//! model (a dozen allocations), and the round then shares them behind an `Arc`. Comparing the
//! JSON with the declaration this thread read last is a walk of a few keys with no allocation,
//! and an equal declaration reads the same: the capabilities are still those of this request,
//! never inferred from another (the JSON compared is this request's own).

use std::cell::RefCell;

use serde_json::Value;

use super::ClientCaps;

/// Declarations kept per thread: a server's clients rarely differ, and a miss costs no more
/// than reading without the cache.
const KEPT: usize = 4;

/// A declaration is kept only if it is this small (its values counted, nested ones included):
/// a client's declaration is a handful; a large one, sent to fill the cache, is read each time.
const MOST_VALUES: usize = 64;

thread_local! {
    static RECENT: RefCell<Vec<(Value, ClientCaps)>> = const { RefCell::new(Vec::new()) };
}

/// The capabilities `declared` reads as, by `read` unless this thread read an equal
/// declaration last.
pub(super) fn read(
    declared: &Value,
    read: impl FnOnce() -> Option<ClientCaps>,
) -> Option<ClientCaps> {
    let found = RECENT.with_borrow(|recent| {
        recent
            .iter()
            .find(|(json, _)| json == declared)
            .map(|(_, caps)| caps.clone())
    });
    if found.is_some() {
        return found;
    }
    let caps = read()?;
    if values_within(declared, &mut { MOST_VALUES }) {
        RECENT.with_borrow_mut(|recent| {
            if recent.len() == KEPT {
                recent.remove(0);
            }
            recent.push((declared.clone(), caps.clone()));
        });
    }
    Some(caps)
}

/// Whether `value` holds at most `budget` values, stopping as soon as it does not.
fn values_within(value: &Value, budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match value {
        Value::Object(map) => map.values().all(|v| values_within(v, budget)),
        Value::Array(items) => items.iter().all(|v| values_within(v, budget)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn caps(form: bool) -> Option<ClientCaps> {
        let declared = if form {
            json!({ "elicitation": { "form": {} } })
        } else {
            json!({ "sampling": {} })
        };
        Some(ClientCaps::from_value(declared))
    }

    #[test]
    fn an_equal_declaration_is_read_once_and_another_is_read_again() {
        let mut reads = 0;
        let declared = json!({ "elicitation": { "form": {} } });
        for _ in 0..3 {
            let read_now = read(&declared, || {
                reads += 1;
                caps(true)
            })
            .unwrap();
            assert!(read_now.elicitation_form());
        }
        assert_eq!(reads, 1);

        let other = json!({ "sampling": {} });
        let read_now = read(&other, || {
            reads += 1;
            caps(false)
        })
        .unwrap();
        assert_eq!(reads, 2);
        assert!(read_now.sampling() && !read_now.elicitation_form());
    }

    #[test]
    fn a_declaration_that_does_not_read_is_not_kept() {
        let declared = json!({ "roots": "not an object" });
        let mut reads = 0;
        for _ in 0..2 {
            assert!(
                read(&declared, || {
                    reads += 1;
                    None
                })
                .is_none()
            );
        }
        assert_eq!(reads, 2);
    }

    #[test]
    fn only_small_declarations_are_kept_and_at_most_a_few() {
        let large =
            json!({ "experimental": (0..MOST_VALUES).map(|i| json!(i)).collect::<Vec<_>>() });
        let mut reads = 0;
        for _ in 0..2 {
            read(&large, || {
                reads += 1;
                caps(false)
            });
        }
        assert_eq!(
            reads, 2,
            "a declaration over the size kept is read every time"
        );

        for i in 0..(KEPT + 2) {
            read(&json!({ "experimental": { "n": i } }), || caps(false));
        }
        assert_eq!(RECENT.with_borrow(Vec::len), KEPT);
    }
}
