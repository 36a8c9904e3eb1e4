//! Form schemas every instance of this build knows: a sealed continuation names the schema of a
//! pending form ask by a short id instead of carrying it, and every ask of a form shares one
//! copy of its schema (and of rmcp's model of it) instead of building its own.
//!
//! `#[derive(Elicit)]` registers each derived form's `requested_schema` at link time
//! ([`inventory`]), so the list is the same in every process started from the same binary,
//! including one that has not asked anything yet: a retry that lands on a fresh instance of a
//! fleet finds the schema there. A schema nobody registered (`elicit_with_schema`, a hand-written
//! `Elicit` impl) is sealed in full, as before.
//!
//! The id is the first 8 bytes of the SHA-256 of the schema's CBOR (keys sorted), so it follows
//! the schema's content, not the type's name: a build that changed a form's schema cannot
//! resolve the ids of the old one, and refuses the continuation (-32602) instead of checking an
//! answer against a form the user was never shown.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use rmcp::model::ElicitationSchema;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::cbor;

/// One derived form, as `#[derive(Elicit)]` submits it.
#[doc(hidden)]
pub struct RegisteredForm {
    pub schema: fn() -> Value,
}

inventory::collect!(RegisteredForm);

pub(crate) const FORM_ID_LEN: usize = 8;
pub(crate) type FormId = [u8; FORM_ID_LEN];

/// A registered form's schema, its id, and rmcp's model of it (converted on first use).
#[doc(hidden)]
pub struct KnownForm {
    id: FormId,
    schema: Value,
    model: OnceLock<Result<ElicitationSchema, String>>,
}

impl KnownForm {
    /// The registered form built by `schema` (a derived type's `requested_schema`), if any:
    /// found by content on first use, then remembered by the function's address, so that the
    /// derive emits one call and no state of its own per type.
    pub fn of(schema: fn() -> Value) -> Option<&'static KnownForm> {
        // Per thread, so that asking (every round that asks a form) touches no lock shared by
        // the runtime's workers; each thread finds a form once. A server has a handful of form
        // types: a short list beats hashing.
        thread_local! {
            static SEEN: RefCell<Vec<(usize, Option<&'static KnownForm>)>> =
                const { RefCell::new(Vec::new()) };
        }
        let address = schema as usize;
        SEEN.with_borrow_mut(|seen| {
            if let Some((_, found)) = seen.iter().find(|(seen, _)| *seen == address) {
                return *found;
            }
            let found = Self::find(&schema());
            seen.push((address, found));
            found
        })
    }

    /// The registered form equal to `schema`, if any.
    fn find(schema: &Value) -> Option<&'static KnownForm> {
        by_id(&id(schema)).filter(|known| known.schema == *schema)
    }

    pub(crate) fn id(&self) -> FormId {
        self.id
    }

    pub(crate) fn schema(&'static self) -> &'static Value {
        &self.schema
    }

    /// rmcp's model of the schema, converted once; a schema rmcp refuses is an error every time.
    pub(crate) fn model(&self) -> Result<ElicitationSchema, serde_json::Error> {
        self.model
            .get_or_init(|| ElicitationSchema::deserialize(&self.schema).map_err(|e| e.to_string()))
            .clone()
            .map_err(<serde_json::Error as serde::de::Error>::custom)
    }
}

/// A form no build registered, as a token from a build whose form changed would name it.
#[cfg(test)]
pub(crate) fn unregistered(schema: Value) -> &'static KnownForm {
    Box::leak(Box::new(KnownForm {
        id: id(&schema),
        schema,
        model: OnceLock::new(),
    }))
}

impl std::fmt::Debug for KnownForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownForm")
            .field("id", &self.id)
            .field("schema", &self.schema)
            .finish()
    }
}

/// The registered form named `id`.
///
/// Looked up on every opening of a continuation with a pending form: a binary search of a
/// sorted list, which costs no hashing of the id (nor the hasher's code on that path).
pub(crate) fn by_id(id: &FormId) -> Option<&'static KnownForm> {
    static KNOWN: OnceLock<Vec<(FormId, &'static KnownForm)>> = OnceLock::new();
    let known = KNOWN
        .get_or_init(|| collect(inventory::iter::<RegisteredForm>().map(|form| (form.schema)())));
    let at = known.binary_search_by_key(id, |(id, _)| *id).ok()?;
    Some(known[at].1)
}

/// The registered forms by id, sorted by it.
fn collect(schemas: impl Iterator<Item = Value>) -> Vec<(FormId, &'static KnownForm)> {
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
    // Built once per process and kept for its lifetime: every ask of the form borrows it.
    let mut known: Vec<(FormId, &'static KnownForm)> = by_id
        .into_iter()
        .map(|(id, schema)| {
            let known: &'static KnownForm = Box::leak(Box::new(KnownForm {
                id,
                schema,
                model: OnceLock::new(),
            }));
            (id, known)
        })
        .collect();
    known.sort_unstable_by_key(|(id, _)| *id);
    known
}

fn id(schema: &Value) -> FormId {
    let mut encoded = Vec::new();
    cbor::json::write(&mut encoded, &sorted(schema.clone()));
    let digest = Sha256::digest(&encoded);
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
        assert_eq!(id(&a), id(&b));
        let known = collect([a.clone(), b].into_iter());
        assert_eq!(known.len(), 1);
        assert_eq!(known[0].1.schema, a);
    }

    #[test]
    fn different_schemas_get_different_ids() {
        let a = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        let b = json!({"type": "object", "properties": {"ok": {"type": "string"}}});
        assert_ne!(id(&a), id(&b));
        let known = collect([a.clone(), b.clone()].into_iter());
        assert_eq!(known.len(), 2);
        assert!(
            known.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "sorted by id"
        );
        for schema in [a, b] {
            let found = known.binary_search_by_key(&id(&schema), |(id, _)| *id);
            assert_eq!(known[found.unwrap()].1.schema, schema);
        }
    }

    #[test]
    fn a_schema_nobody_registered_is_not_found() {
        let schema =
            json!({"type": "object", "properties": {"never_registered": {"type": "string"}}});
        assert!(KnownForm::find(&schema).is_none());
    }
}
