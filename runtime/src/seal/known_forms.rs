//! Form schemas every instance of this build knows: a sealed continuation names the schema of a
//! pending form ask by a short id instead of carrying it.
//!
//! `#[derive(Elicit)]` registers each derived form's `requested_schema` at link time
//! ([`inventory`]), so the list is the same in every process started from the same binary,
//! including one that has not asked anything yet: a retry that lands on a fresh instance of a
//! fleet finds the schema there. A schema nobody registered (`elicit_with_schema`, a hand-written
//! `Elicit` impl) is sealed in full, as before.
//!
//! The id is the first 8 bytes of the SHA-256 of the schema's CBOR (keys sorted), so it follows the schema's
//! content, not the type's name: a build that changed a form's schema cannot resolve the ids of
//! the old one, and refuses the continuation (-32602) instead of checking an answer against a
//! form the user was never shown.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::json_cbor;

/// One derived form, as `#[derive(Elicit)]` submits it.
#[doc(hidden)]
pub struct RegisteredForm {
    pub schema: fn() -> Value,
}

inventory::collect!(RegisteredForm);

pub(crate) const FORM_ID_LEN: usize = 8;
pub(crate) type FormId = [u8; FORM_ID_LEN];

struct Known {
    by_id: HashMap<FormId, Value>,
    /// [`shape`] of each known schema, to find a schema's id without hashing its CBOR per seal.
    by_shape: HashMap<u64, Vec<FormId>>,
}

fn known() -> &'static Known {
    static KNOWN: OnceLock<Known> = OnceLock::new();
    KNOWN.get_or_init(|| collect(inventory::iter::<RegisteredForm>().map(|form| (form.schema)())))
}

fn collect(schemas: impl Iterator<Item = Value>) -> Known {
    let mut by_id: HashMap<FormId, Value> = HashMap::new();
    let mut clashing = Vec::new();
    for schema in schemas {
        let id = id(&schema);
        match by_id.get(&id) {
            Some(same) if *same == schema => {}
            // Two different schemas under one id (a truncated-hash collision): neither can be
            // named unambiguously, so both are sealed in full.
            Some(_) => clashing.push(id),
            None => {
                by_id.insert(id, schema);
            }
        }
    }
    for id in clashing {
        by_id.remove(&id);
    }
    let mut by_shape: HashMap<u64, Vec<FormId>> = HashMap::new();
    for (id, schema) in &by_id {
        by_shape.entry(shape(schema)).or_default().push(*id);
    }
    Known { by_id, by_shape }
}

fn id(schema: &Value) -> FormId {
    let mut cbor = Vec::new();
    json_cbor::write(&mut cbor, &sorted(schema.clone()));
    let digest = Sha256::digest(&cbor);
    let mut id = [0; FORM_ID_LEN];
    id.copy_from_slice(&digest[..FORM_ID_LEN]);
    id
}

/// `value` with every object's keys in order, so that the id does not depend on insertion order
/// (serde_json's `preserve_order`).
fn sorted(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut map: serde_json::Map<String, Value> = map
                .into_iter()
                .map(|(key, item)| (key, sorted(item)))
                .collect();
            map.sort_keys();
            Value::Object(map)
        }
        other => other,
    }
}

/// A cheap structural hash: equal values hash equal whatever their key order, without
/// allocating (an object's entries are combined by a commutative sum).
fn shape(value: &Value) -> u64 {
    let mut hasher = Fnv::default();
    match value {
        Value::Null => 0u8.hash(&mut hasher),
        Value::Bool(b) => (1u8, b).hash(&mut hasher),
        Value::Number(n) => {
            (2u8, n.as_u64(), n.as_i64(), n.as_f64().map(f64::to_bits)).hash(&mut hasher)
        }
        Value::String(s) => (3u8, s).hash(&mut hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut hasher);
            items.iter().for_each(|item| shape(item).hash(&mut hasher));
        }
        Value::Object(map) => {
            let entries = map.iter().fold(0u64, |sum, (key, item)| {
                let mut entry = Fnv::default();
                (key, shape(item)).hash(&mut entry);
                sum.wrapping_add(entry.finish())
            });
            (5u8, map.len(), entries).hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// FNV-1a: [`shape`] runs on every seal of a form, over a few hundred bytes, where SipHash's
/// per-hasher setup and finish cost more than the bytes. Collisions only cost an equality check.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The id of `schema` if this build registered an equal one.
pub(crate) fn id_of(schema: &Value) -> Option<FormId> {
    let known = known();
    if known.by_id.is_empty() {
        return None;
    }
    known
        .by_shape
        .get(&shape(schema))?
        .iter()
        .find(|id| known.by_id.get(*id) == Some(schema))
        .copied()
}

/// The schema this build registered under `id`.
pub(crate) fn schema(id: &FormId) -> Option<&'static Value> {
    known().by_id.get(id)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn equal_schemas_share_an_id_whatever_their_key_order() {
        let a = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        let b: Value = serde_json::from_str(
            r#"{"properties": {"ok": {"type": "boolean"}}, "type": "object"}"#,
        )
        .unwrap();
        assert_eq!(shape(&a), shape(&b));
        let known = collect([a.clone(), b].into_iter());
        assert_eq!(known.by_id.len(), 1);
        assert_eq!(known.by_id.values().next(), Some(&a));
    }

    #[test]
    fn different_schemas_get_different_ids() {
        let a = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        let b = json!({"type": "object", "properties": {"ok": {"type": "string"}}});
        assert_ne!(id(&a), id(&b));
        assert_eq!(collect([a, b].into_iter()).by_id.len(), 2);
    }
}
