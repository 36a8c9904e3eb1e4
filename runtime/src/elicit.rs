//! Types that can be asked for with a flat elicitation form.
//!
//! `#[derive(mrtr::Elicit)]` on a struct with named fields builds the restricted
//! `requestedSchema` of the spec's elicitation section (`ElicitRequestFormParams`) from the Rust type; on a unit-only enum it makes the
//! enum usable as a single-select field (and, in a `Vec`, a multi-select). The generated code
//! reaches this module only through the runtime's private path for generated code (`__private_v*::derive_elicit`).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A form: a flat object of primitive fields. Derive it with `#[derive(mrtr::Elicit)]`, or
/// implement it by hand for a schema the derive cannot express.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "`elicit::<{Self}>` needs a form type here",
    note = "derive `mrtr::Elicit` on a struct with named fields, or pass a hand-built schema to `mrtr::elicit_with_schema`"
)]
pub trait Elicit: DeserializeOwned {
    /// The restricted `requestedSchema` (`{"type":"object","properties":..,"required":..}`).
    fn requested_schema() -> Value;

    /// The registered copy of this form's schema, shared by every ask of it and named by id in
    /// a sealed continuation. `#[derive(Elicit)]` registers the schema and finds it once; a
    /// hand-written impl has none, and its schema is built and sealed with each ask.
    #[doc(hidden)]
    fn __known_form() -> Option<&'static crate::seal::known_forms::KnownForm> {
        None
    }
}

/// What `#[derive(Elicit)]` expands to. Not a public API.
#[doc(hidden)]
pub mod __derive_support {
    use serde_json::{Map, Value};

    pub use super::Elicit;
    pub use crate::seal::known_forms::{KnownForm, RegisteredForm};
    pub use inventory::submit;
    pub use serde_json::Value as Json;

    /// One property's schema object.
    pub type Schema = Map<String, Value>;

    /// One value of a single- or multi-select field.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Choice {
        /// The wire value (after `#[serde(rename)]` / `rename_all`).
        pub value: &'static str,
        /// `#[elicit(title = "..")]` on the variant.
        pub title: Option<&'static str>,
    }

    /// A field type the derive knows how to describe.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a field of an elicitation form",
        label = "not a flat form field",
        note = "a form field is a `String`, a `bool`, an integer, a float, a unit-only enum with `#[derive(mrtr::Elicit)]`, a `Vec` of such an enum (multi-select), or an `Option` of one of these",
        note = "the requestedSchema is flat: lift a nested struct's fields into this struct, or ask for it in a separate `ask!`"
    )]
    pub trait ElicitField {
        /// `false` for `Option<_>`: the client may leave the field out.
        const REQUIRED: bool = true;
        /// The values a default must come from; empty when the field takes free input.
        const CHOICES: &'static [Choice] = &[];
        /// The property schema without title, description or constraints.
        fn schema() -> Map<String, Value>;
    }

    /// A unit-only enum with `#[derive(Elicit)]`: the element of a multi-select.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the element of a multi-select field",
        label = "a `Vec` field is a multi-select of enum values",
        note = "derive `mrtr::Elicit` on a unit-only enum and use `Vec<ThatEnum>`; free-form lists and lists of structs do not fit the flat requestedSchema"
    )]
    pub trait ElicitChoice {
        const CHOICES: &'static [Choice];
        /// `#[elicit(legacy_enum_names)]`: titles as the deprecated `enumNames` array.
        const LEGACY_ENUM_NAMES: bool = false;
    }

    macro_rules! primitive {
        ($json_type:literal: $($ty:ty),*) => {$(
            impl ElicitField for $ty {
                fn schema() -> Map<String, Value> {
                    typed($json_type)
                }
            }
        )*};
    }
    primitive!("string": String);
    primitive!("boolean": bool);
    primitive!("integer": i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    primitive!("number": f32, f64);

    impl<T: ElicitField> ElicitField for Option<T> {
        const REQUIRED: bool = false;
        const CHOICES: &'static [Choice] = T::CHOICES;
        fn schema() -> Map<String, Value> {
            T::schema()
        }
    }

    impl<E: ElicitChoice> ElicitField for Vec<E> {
        const CHOICES: &'static [Choice] = E::CHOICES;
        fn schema() -> Map<String, Value> {
            multi_select(E::CHOICES)
        }
    }

    fn typed(json_type: &str) -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".into(), json_type.into());
        schema
    }

    fn titled(choices: &[Choice]) -> bool {
        choices.iter().any(|c| c.title.is_some())
    }

    fn values(choices: &[Choice]) -> Value {
        choices.iter().map(|c| Value::from(c.value)).collect()
    }

    fn const_titles(choices: &[Choice]) -> Value {
        choices
            .iter()
            .map(|c| {
                let mut entry = Map::new();
                entry.insert("const".into(), c.value.into());
                entry.insert("title".into(), c.title.unwrap_or(c.value).into());
                Value::Object(entry)
            })
            .collect()
    }

    /// Untitled `enum`, titled `oneOf: [{const, title}]`, or the deprecated `enum` + `enumNames`.
    pub fn single_select(choices: &[Choice], legacy_enum_names: bool) -> Map<String, Value> {
        let mut schema = typed("string");
        if !titled(choices) {
            schema.insert("enum".into(), values(choices));
        } else if legacy_enum_names {
            schema.insert("enum".into(), values(choices));
            let names = choices
                .iter()
                .map(|c| Value::from(c.title.unwrap_or(c.value)))
                .collect();
            schema.insert("enumNames".into(), names);
        } else {
            schema.insert("oneOf".into(), const_titles(choices));
        }
        schema
    }

    /// `type: "array"` with untitled `items.enum` or titled `items.anyOf: [{const, title}]`.
    pub fn multi_select(choices: &[Choice]) -> Map<String, Value> {
        let mut items = Map::new();
        if titled(choices) {
            items.insert("anyOf".into(), const_titles(choices));
        } else {
            items.insert("type".into(), "string".into());
            items.insert("enum".into(), values(choices));
        }
        let mut schema = typed("array");
        schema.insert("items".into(), Value::Object(items));
        schema
    }

    /// One property of the form, built from the field's type and its attributes.
    pub struct Property(Map<String, Value>);

    impl Property {
        pub fn of<F: ElicitField + ?Sized>() -> Self {
            Property(F::schema())
        }

        /// Sets one schema keyword (`title`, `description`, `minLength`, `default`, ..).
        pub fn with(mut self, keyword: &str, value: impl Into<Value>) -> Self {
            self.0.insert(keyword.into(), value.into());
            self
        }
    }

    /// The `requestedSchema` under construction, properties in declaration order of `required`.
    #[derive(Default)]
    pub struct Form {
        properties: Map<String, Value>,
        required: Vec<Value>,
    }

    impl Form {
        pub fn new() -> Self {
            Self::default()
        }

        pub fn field(mut self, name: &str, property: Property, required: bool) -> Self {
            self.properties
                .insert(name.into(), Value::Object(property.0));
            if required {
                self.required.push(name.into());
            }
            self
        }

        pub fn finish(self) -> Value {
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), Value::Object(self.properties));
            if !self.required.is_empty() {
                schema.insert("required".into(), Value::Array(self.required));
            }
            Value::Object(schema)
        }
    }

    // Marker traits for attribute/type agreement. A mismatch is reported on the field's type,
    // with a label naming the attributes that need that kind of field.

    #[diagnostic::on_unimplemented(
        message = "this attribute applies to string fields, and `{Self}` is not one",
        label = "`min_length`, `max_length`, `format` and a string `default` need a `String` field",
        note = "use `min`/`max` for numbers and `min_items`/`max_items` for multi-selects"
    )]
    pub trait TextField {}
    impl TextField for String {}
    impl<T: TextField> TextField for Option<T> {}

    #[diagnostic::on_unimplemented(
        message = "this attribute applies to number fields, and `{Self}` is not one",
        label = "`min`, `max` and a numeric `default` need an integer or float field"
    )]
    pub trait NumberField {}
    macro_rules! number_fields {
        ($($ty:ty),*) => {$( impl NumberField for $ty {} )*};
    }
    number_fields!(
        i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
    );
    impl<T: NumberField> NumberField for Option<T> {}

    #[diagnostic::on_unimplemented(
        message = "a fractional value needs a float field, and `{Self}` is not one",
        label = "an integer field takes integer `min`, `max` and `default` (`type: \"integer\"`)",
        note = "write the value without a fraction, or make the field `f64`"
    )]
    pub trait FloatField {}
    impl FloatField for f32 {}
    impl FloatField for f64 {}
    impl<T: FloatField> FloatField for Option<T> {}

    #[diagnostic::on_unimplemented(
        message = "a boolean `default` needs a `bool` field, and `{Self}` is not one",
        label = "`default = true` / `default = false` apply to `bool` fields"
    )]
    pub trait BoolField {}
    impl BoolField for bool {}
    impl<T: BoolField> BoolField for Option<T> {}

    #[diagnostic::on_unimplemented(
        message = "a string `default` needs a `String` or single-select enum field, and `{Self}` is not one",
        label = "this field does not take a string default"
    )]
    pub trait StrDefaultField {}
    impl StrDefaultField for String {}
    impl<T: StrDefaultField> StrDefaultField for Option<T> {}

    #[diagnostic::on_unimplemented(
        message = "this attribute applies to multi-select fields, and `{Self}` is not one",
        label = "`min_items`, `max_items` and a list `default` need a `Vec<E>` field of a unit-only enum",
        note = "derive `mrtr::Elicit` on the enum and make the field `Vec<ThatEnum>`"
    )]
    pub trait MultiSelectField {}
    impl<E: ElicitChoice> MultiSelectField for Vec<E> {}
    impl<T: MultiSelectField> MultiSelectField for Option<T> {}

    // Named requirements; the derive mentions them under the attribute's span.
    pub fn text<T: TextField + ?Sized>() {}
    pub fn number<T: NumberField + ?Sized>() {}
    pub fn float<T: FloatField + ?Sized>() {}
    pub fn boolean<T: BoolField + ?Sized>() {}
    pub fn str_default<T: StrDefaultField + ?Sized>() {}
    pub fn multi_select_field<T: MultiSelectField + ?Sized>() {}

    /// Compile-time check that an enum field's `default` is one of its wire values.
    pub const fn assert_choice(choices: &[Choice], value: &str) {
        if choices.is_empty() {
            return;
        }
        let mut i = 0;
        while i < choices.len() {
            if str_eq(choices[i].value, value) {
                return;
            }
            i += 1;
        }
        panic!(
            "`default` is not one of the enum's wire values (after `#[serde(rename)]`/`rename_all`)"
        );
    }

    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// Checks accepted form content against the `requestedSchema` it answers.
///
/// Servers SHOULD validate returned data (spec, elicitation: "servers SHOULD validate"), and clients need not enforce the
/// schema's bounds, so a `maximum`, a `minLength` or a `format` is checked here rather than
/// trusted. Only the restricted keywords of a flat form are read; properties the schema does
/// not name are left to the decoder (which ignores them).
pub(crate) fn check_content(schema: &Value, content: &Value) -> Result<(), String> {
    let Some(content) = content.as_object() else {
        return Err("form content must be an object".into());
    };
    let properties = keyword(schema, "properties").and_then(Value::as_object);
    if let Some(required) = keyword(schema, "required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if entry(content, name).is_none_or(Value::is_null) {
                return Err(format!("required field `{name}` is missing"));
            }
        }
    }
    for (name, property) in properties.into_iter().flatten() {
        match entry(content, name) {
            None | Some(Value::Null) => {}
            Some(value) => {
                check_property(property, value).map_err(|e| format!("field `{name}`: {e}"))?
            }
        }
    }
    Ok(())
}

fn check_property(property: &Value, value: &Value) -> Result<(), String> {
    let keyword = |name: &str| self::keyword(property, name);
    match keyword("type").and_then(Value::as_str) {
        Some("string") => {
            let text = value.as_str().ok_or("expected a string")?;
            let length = text.chars().count() as u64;
            if keyword("minLength")
                .and_then(Value::as_u64)
                .is_some_and(|min| length < min)
            {
                return Err("shorter than `minLength`".into());
            }
            if keyword("maxLength")
                .and_then(Value::as_u64)
                .is_some_and(|max| length > max)
            {
                return Err("longer than `maxLength`".into());
            }
            if let Some(format) = keyword("format").and_then(Value::as_str)
                && !matches_format(format, text)
            {
                return Err(format!("not a valid `{format}`"));
            }
            if !in_choices(property, text) {
                return Err("not one of the offered values".into());
            }
        }
        Some(kind @ ("number" | "integer")) => {
            let number = value.as_f64().ok_or("expected a number")?;
            if kind == "integer" && !(value.is_i64() || value.is_u64()) {
                return Err("expected an integer".into());
            }
            if keyword("minimum")
                .and_then(Value::as_f64)
                .is_some_and(|min| number < min)
            {
                return Err("below `minimum`".into());
            }
            if keyword("maximum")
                .and_then(Value::as_f64)
                .is_some_and(|max| number > max)
            {
                return Err("above `maximum`".into());
            }
        }
        Some("boolean") => {
            value.as_bool().ok_or("expected a boolean")?;
        }
        Some("array") => {
            let items = value.as_array().ok_or("expected an array")?;
            let count = items.len() as u64;
            if keyword("minItems")
                .and_then(Value::as_u64)
                .is_some_and(|min| count < min)
            {
                return Err("fewer items than `minItems`".into());
            }
            if keyword("maxItems")
                .and_then(Value::as_u64)
                .is_some_and(|max| count > max)
            {
                return Err("more items than `maxItems`".into());
            }
            let item_schema = keyword("items").unwrap_or(&Value::Null);
            for item in items {
                let text = item.as_str().ok_or("expected an array of strings")?;
                if !in_choices(item_schema, text) {
                    return Err("an item is not one of the offered values".into());
                }
            }
        }
        // A keyword this flat-form checker does not know: leave the value to the decoder.
        _ => {}
    }
    Ok(())
}

/// `enum`, `oneOf` or `anyOf` of `{const}`; a schema with none of them takes any string.
fn in_choices(schema: &Value, text: &str) -> bool {
    if let Some(values) = keyword(schema, "enum").and_then(Value::as_array) {
        return values.iter().any(|v| v.as_str() == Some(text));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = keyword(schema, key).and_then(Value::as_array) {
            return options
                .iter()
                .any(|o| keyword(o, "const").and_then(Value::as_str) == Some(text));
        }
    }
    true
}

/// A schema keyword: `None` when `schema` is not an object or has no `name`.
fn keyword<'v>(schema: &'v Value, name: &str) -> Option<&'v Value> {
    entry(schema.as_object()?, name)
}

/// One lookup for every keyword and field the checks read. Out of line: inlined, each of the
/// dozen lookups above was its own copy of the map's search, all of them run on every answer.
#[inline(never)]
fn entry<'m>(map: &'m Map<String, Value>, name: &str) -> Option<&'m Value> {
    map.get(name)
}

/// Deliberately shallow checks: enough to refuse a value of the wrong kind, not a full RFC
/// parser (the decoder and the handler still see the text).
fn matches_format(format: &str, text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let is_date = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == 3
            && parts[0].len() == 4
            && parts[1].len() == 2
            && parts[2].len() == 2
            && parts.iter().all(|p| digits(p))
    };
    match format {
        "email" => text.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        }),
        "uri" => text.split_once(':').is_some_and(|(scheme, rest)| {
            !rest.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }),
        "date" => is_date(text),
        "date-time" => text.split_once(['T', 't']).is_some_and(|(date, time)| {
            is_date(date) && time.len() >= 8 && time.as_bytes()[2] == b':'
        }),
        _ => true,
    }
}
