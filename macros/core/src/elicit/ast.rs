//! The derive's IR, built from syn, with every check applied on the way in.
//!
//! What the derive can see syntactically (container shape, generics, attribute values, field
//! types spelled as maps, tuples, references or free-form lists) is checked here. What only
//! the type system knows (a field naming a nested struct through an alias, an attribute on a
//! field of the wrong kind) is left to the marker traits `expand` names, whose
//! `#[diagnostic::on_unimplemented]` messages carry the fix.

use syn::{Data, DeriveInput, Fields, GenericArgument, Ident, LitStr, PathArguments, Type};

use super::attr::{ChoiceAttrs, DefaultValue, FieldAttrs, doc_description};
use super::serde_attrs::Serde;
use crate::errors::Errors;

pub(crate) enum Input<'a> {
    Form(Form<'a>),
    Choice(Choice<'a>),
}

/// A struct with named fields: the `requestedSchema`.
pub(crate) struct Form<'a> {
    pub ident: &'a Ident,
    pub fields: Vec<Field<'a>>,
}

pub(crate) struct Field<'a> {
    pub ty: &'a Type,
    /// The property name: what serde reads the answer's key as.
    pub name: String,
    pub description: Option<String>,
    pub attrs: FieldAttrs,
    /// `#[serde(default)]` on the field or the struct: the client may leave it out.
    pub optional_on_wire: bool,
}

/// A unit-only enum: the values of a single- or multi-select.
pub(crate) struct Choice<'a> {
    pub ident: &'a Ident,
    pub variants: Vec<Variant>,
    pub legacy_enum_names: bool,
}

pub(crate) struct Variant {
    pub value: String,
    pub title: Option<LitStr>,
}

impl<'a> Input<'a> {
    /// `None` when the input's shape is wrong; the reason is in `errors`.
    pub(crate) fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> Option<Self> {
        if !input.generics.params.is_empty() {
            errors.at(
                &input.generics,
                "`Elicit` cannot be derived for a type with generic or lifetime parameters: a form's schema is fixed at compile time and its answer is decoded into an owned value; derive it on a concrete, owned type",
            );
        }
        let serde = Serde::read(input);
        match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(fields) => {
                    super::attr::reject_container_attrs(&input.attrs, errors);
                    let fields = fields
                        .named
                        .iter()
                        .filter_map(|field| Field::from_syn(field, &serde, errors))
                        .collect();
                    Some(Input::Form(Form {
                        ident: &input.ident,
                        fields,
                    }))
                }
                _ => {
                    errors.at(
                        &input.ident,
                        "`Elicit` needs a struct with named fields: each field becomes one property of the form",
                    );
                    None
                }
            },
            Data::Enum(data) => {
                let attrs = ChoiceAttrs::parse(&input.attrs, errors);
                if let Some(key) = serde.not_plain_strings {
                    errors.at_span(
                        key,
                        "a choice enum must deserialize from a plain string; remove `tag`/`content`/`untagged`",
                    );
                }
                if data.variants.is_empty() {
                    errors.at(&input.ident, "a choice enum needs at least one variant");
                }
                let mut variants = Vec::new();
                for variant in &data.variants {
                    if !matches!(variant.fields, Fields::Unit) {
                        errors.at(
                            variant,
                            format_args!(
                                "variant `{}` carries data, but an elicitation choice is a plain string: make it a unit variant, or ask for its data as separate form fields",
                                variant.ident
                            ),
                        );
                        continue;
                    }
                    let title = super::attr::variant_title(&variant.attrs, errors);
                    let Some(member) = serde.members.get(&variant.ident.to_string()) else {
                        continue;
                    };
                    if member.skip {
                        continue;
                    }
                    let value = member.name.clone();
                    variants.push((variant, Variant { value, title }));
                }
                let titled = variants.iter().filter(|(_, v)| v.title.is_some()).count();
                if titled != 0 && titled != variants.len() {
                    for (variant, _) in variants.iter().filter(|(_, v)| v.title.is_none()) {
                        errors.at(
                            &variant.ident,
                            format_args!(
                                "variant `{}` has no `#[elicit(title = \"..\")]` while others do: title every variant (a titled `oneOf`) or none (a plain `enum`)",
                                variant.ident
                            ),
                        );
                    }
                }
                if attrs.legacy_enum_names.is_present() && titled == 0 {
                    let key = attrs.legacy_enum_names.span();
                    errors.at_span(key, "`legacy_enum_names` lists variant titles: add `#[elicit(title = \"..\")]` to every variant");
                }
                Some(Input::Choice(Choice {
                    ident: &input.ident,
                    variants: variants.into_iter().map(|(_, v)| v).collect(),
                    legacy_enum_names: attrs.legacy_enum_names.is_present(),
                }))
            }
            Data::Union(_) => {
                errors.at(
                    &input.ident,
                    "`Elicit` cannot be derived for a union; use a struct with named fields",
                );
                None
            }
        }
    }
}

impl<'a> Field<'a> {
    fn from_syn(field: &'a syn::Field, serde: &Serde, errors: &mut Errors) -> Option<Self> {
        let attrs = FieldAttrs::parse(&field.attrs, errors);
        let serde = serde.members.get(&field.ident.as_ref()?.to_string())?;
        if let Some(key) = serde.flatten {
            errors.at_span(
                key,
                "`#[serde(flatten)]` nests another type's fields, which a flat form cannot describe: declare those fields here instead",
            );
            return None;
        }
        if serde.skip {
            return None;
        }
        check_type(&field.ty, errors);
        check_ranges(&attrs, errors);
        let name = serde.name.clone();
        let description = attrs
            .description
            .as_ref()
            .map(|d| d.value.value())
            .or_else(|| doc_description(&field.attrs));
        Some(Field {
            ty: &field.ty,
            name,
            description,
            attrs,
            optional_on_wire: serde.default,
        })
    }
}

/// Field types the derive can rule out by their spelling, with the fix for each.
fn check_type(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::Reference(_) => errors.at(
            ty,
            "a borrowed field cannot be decoded from an answer: use an owned type such as `String`",
        ),
        Type::Tuple(tuple) if !tuple.elems.is_empty() => errors.at(
            ty,
            "a tuple does not fit a flat form: declare one field per element",
        ),
        Type::Array(_) | Type::Slice(_) => errors.at(
            ty,
            "an array does not fit a flat form: a multi-select is a `Vec` of a unit-only enum that derives `Elicit`",
        ),
        Type::Group(group) => check_type(&group.elem, errors),
        Type::Paren(paren) => check_type(&paren.elem, errors),
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else { return };
            let name = last.ident.to_string();
            if MAPS.contains(&name.as_str()) {
                errors.at(
                    ty,
                    "a map does not fit a flat form: the requestedSchema has a fixed set of properties; declare one field per key",
                );
            } else if let Some(inner) = only_type_argument(&last.arguments) {
                match name.as_str() {
                    "Option" => check_type(inner, errors),
                    "Vec" => check_list_element(inner, errors),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn check_list_element(element: &Type, errors: &mut Errors) {
    if let Type::Path(path) = element
        && let Some(last) = path.path.segments.last()
        && PRIMITIVES.contains(&last.ident.to_string().as_str())
    {
        errors.at(
            element,
            "a free-form list is not part of the elicitation schema: a multi-select is a `Vec` of a unit-only enum that derives `Elicit`",
        );
        return;
    }
    if let Type::Path(path) = element
        && let Some(last) = path.path.segments.last()
        && (last.ident == "Vec" || MAPS.contains(&last.ident.to_string().as_str()))
    {
        errors.at(element, "nested collections do not fit a flat form");
        return;
    }
    check_type(element, errors);
}

fn only_type_argument(arguments: &PathArguments) -> Option<&Type> {
    match arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(ty)) => Some(ty),
            _ => None,
        },
        _ => None,
    }
}

const MAPS: [&str; 6] = [
    "HashMap", "BTreeMap", "IndexMap", "Map", "HashSet", "BTreeSet",
];

const PRIMITIVES: [&str; 17] = [
    "String", "str", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
    "u32", "u64", "u128", "f32", "f64",
];

/// A lower bound above its upper bound makes a form nobody can fill in.
fn check_ranges(attrs: &FieldAttrs, errors: &mut Errors) {
    if let (Some(min), Some(max)) = (&attrs.min, &attrs.max)
        && min.value.value > max.value.value
    {
        errors.at(&min.key, "`min` is greater than `max`");
    }
    for (low, high, what) in [
        (
            &attrs.min_length,
            &attrs.max_length,
            "`min_length` is greater than `max_length`",
        ),
        (
            &attrs.min_items,
            &attrs.max_items,
            "`min_items` is greater than `max_items`",
        ),
    ] {
        if let (Some(low), Some(high)) = (low, high)
            && low.value > high.value
        {
            errors.at(&low.key, what);
        }
    }
    if let Some(default) = &attrs.default
        && let DefaultValue::Number(number) = &default.value
    {
        let below = attrs
            .min
            .as_ref()
            .is_some_and(|min| number.value < min.value.value);
        let above = attrs
            .max
            .as_ref()
            .is_some_and(|max| number.value > max.value.value);
        if below || above {
            errors.at(&default.key, "the `default` lies outside `min`..=`max`");
        }
    }
}
