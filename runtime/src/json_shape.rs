//! Arbitrary JSON values for the property tests of everything that carries them (the token's
//! CBOR, the sealed round trip, the `inputResponses` limits): one generator, shaped per test.

use proptest::prelude::*;
use serde_json::Value;

/// What the generated values look like: their strings and keys (regexes), how deep they nest,
/// about how many nodes they hold and how many items one array or object has at most.
pub(crate) struct JsonShape {
    pub text: &'static str,
    pub keys: &'static str,
    pub depth: u32,
    pub nodes: u32,
    pub items: usize,
}

impl JsonShape {
    pub(crate) fn values(self) -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
                .prop_map(Value::from),
            // Floats a single-precision encoding holds exactly.
            any::<f32>()
                .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
                .prop_map(|f| Value::from(f64::from(f))),
            self.text.prop_map(Value::String),
        ];
        let (keys, items) = (self.keys, self.items);
        leaf.prop_recursive(self.depth, self.nodes, items as u32, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..items).prop_map(Value::Array),
                prop::collection::btree_map(keys, inner, 0..items)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }
}
