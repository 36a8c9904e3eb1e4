//! Reading the attributes the derive cares about: `#[elicit(..)]` (through darling, which
//! accumulates every mistake and suggests the nearest key for a misspelt one) and doc comments.
//! serde's own attributes are read by serde's parser, in `serde_attrs`.

use darling::util::Flag;
use darling::{FromAttributes, FromMeta};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitBool, LitStr, Meta, UnOp};

use crate::errors::Errors;

/// An attribute value together with the key it was written under, for error spans.
pub(crate) struct Keyed<T> {
    pub key: syn::Path,
    pub value: T,
}

impl<T: FromMeta> FromMeta for Keyed<T> {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        Ok(Keyed {
            key: item.path().clone(),
            value: T::from_meta(item)?,
        })
    }
}

/// A numeric literal from `min`, `max` or `default`.
pub(crate) struct Number {
    /// For comparing `min` with `max`.
    pub value: f64,
    /// Written with a fraction or exponent: needs a float field.
    pub fractional: bool,
    /// The expression that builds its JSON value.
    pub json: TokenStream,
}

impl FromMeta for Number {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        number(expr).map_err(darling::Error::from)
    }
}

pub(crate) enum DefaultValue {
    Str(LitStr),
    Number(Number),
    Bool(LitBool),
    /// A multi-select default: `default = ["a", "b"]`.
    List(Vec<LitStr>),
}

impl FromMeta for DefaultValue {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        default_value(expr).map_err(darling::Error::from)
    }
}

/// A string format the 2026-07-28 `StringSchema` allows.
pub(crate) struct Format(pub LitStr);

pub(crate) const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

impl FromMeta for Format {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let format = LitStr::from_expr(expr)?;
        if !FORMATS.contains(&format.value().as_str()) {
            return Err(darling::Error::custom(format!(
                "unsupported format `{}`: an elicitation string field takes `email`, `uri`, `date` or `date-time`",
                format.value()
            ))
            .with_span(&format));
        }
        Ok(Format(format))
    }
}

/// `#[elicit(..)]` on a struct field.
#[derive(Default, FromAttributes)]
#[darling(attributes(elicit))]
pub(crate) struct FieldAttrs {
    pub title: Option<Keyed<LitStr>>,
    pub description: Option<Keyed<LitStr>>,
    pub format: Option<Keyed<Format>>,
    pub min: Option<Keyed<Number>>,
    pub max: Option<Keyed<Number>>,
    pub min_length: Option<Keyed<u64>>,
    pub max_length: Option<Keyed<u64>>,
    pub min_items: Option<Keyed<u64>>,
    pub max_items: Option<Keyed<u64>>,
    pub default: Option<Keyed<DefaultValue>>,
}

impl FieldAttrs {
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let parsed = explain_unknown(FieldAttrs::from_attributes(attrs), FIELD_KEYS);
        errors.take(parsed).unwrap_or_default()
    }
}

const FIELD_KEYS: &str = "a field takes `title`, `description`, `format`, `min`, `max`, `min_length`, `max_length`, `min_items`, `max_items`, `default`";

/// darling names an unknown key (and the nearest known one when there is one); this adds the
/// keys that are accepted there.
fn explain_unknown<T>(parsed: darling::Result<T>, takes: &str) -> darling::Result<T> {
    parsed.map_err(|error| {
        darling::Error::multiple(
            error
                .into_iter()
                .map(|error| {
                    let text = error.to_string();
                    if text.starts_with("Unknown field") {
                        syn::Error::new(error.span(), format!("{text}; {takes}")).into()
                    } else {
                        error
                    }
                })
                .collect(),
        )
    })
}

/// `#[elicit(..)]` on a unit-only enum.
#[derive(Default, FromAttributes)]
#[darling(attributes(elicit))]
pub(crate) struct ChoiceAttrs {
    /// Titles as the deprecated `enum` + `enumNames` pair instead of `oneOf`.
    pub legacy_enum_names: Flag,
}

impl ChoiceAttrs {
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let parsed = explain_unknown(
            ChoiceAttrs::from_attributes(attrs),
            "an enum takes `legacy_enum_names`",
        );
        errors.take(parsed).unwrap_or_default()
    }
}

/// `#[elicit(title = "..")]` on an enum variant.
#[derive(Default, FromAttributes)]
#[darling(attributes(elicit))]
struct VariantAttrs {
    title: Option<LitStr>,
}

pub(crate) fn variant_title(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let parsed = explain_unknown(
        VariantAttrs::from_attributes(attrs),
        "a variant takes `title`",
    );
    errors.take(parsed).and_then(|attrs| attrs.title)
}

/// A struct takes no `#[elicit(..)]` of its own; say so instead of ignoring it.
pub(crate) fn reject_container_attrs(attrs: &[Attribute], errors: &mut Errors) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("elicit")) {
        errors.at(
            attr,
            "a form struct takes no `#[elicit(..)]` attribute; put `#[elicit(..)]` on its fields",
        );
    }
}

/// A number literal, possibly negative: as an attribute value syn reads `-1` as one (negative)
/// literal, inside a list as `-` applied to a literal; both mean the same.
fn number(expr: &Expr) -> syn::Result<Number> {
    let (negated, lit) = match expr {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let (digits, fractional) = match lit {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => (int.base10_digits(), false),
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => (float.base10_digits(), true),
        _ => {
            return Err(syn::Error::new_spanned(
                expr,
                "expected a number literal, such as `0`, `-1` or `2.5`",
            ));
        }
    };
    let negative = negated != digits.starts_with('-');
    let digits = digits.trim_start_matches('-');
    let invalid = || syn::Error::new_spanned(expr, "this number does not fit in 64 bits");
    if fractional {
        let magnitude: f64 = digits.parse().map_err(|_| invalid())?;
        let value = if negative { -magnitude } else { magnitude };
        return Ok(Number {
            value,
            fractional: true,
            json: quote!(#value),
        });
    }
    let magnitude: u64 = digits.parse().map_err(|_| invalid())?;
    let json = if negative {
        let value = i64::try_from(magnitude)
            .map(|m| -m)
            .map_err(|_| invalid())?;
        quote!(#value)
    } else {
        quote!(#magnitude)
    };
    let value = magnitude as f64;
    Ok(Number {
        value: if negative { -value } else { value },
        fractional: false,
        json,
    })
}

fn default_value(expr: &Expr) -> syn::Result<DefaultValue> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(text), .. }) => Ok(DefaultValue::Str(text.clone())),
        Expr::Lit(ExprLit { lit: Lit::Bool(flag), .. }) => Ok(DefaultValue::Bool(flag.clone())),
        Expr::Array(array) => {
            let items = array
                .elems
                .iter()
                .map(|item| match item {
                    Expr::Lit(ExprLit { lit: Lit::Str(text), .. }) => Ok(text.clone()),
                    other => Err(syn::Error::new_spanned(other, "a multi-select default lists wire values as string literals")),
                })
                .collect::<syn::Result<_>>()?;
            Ok(DefaultValue::List(items))
        }
        other => number(other).map(DefaultValue::Number).map_err(|_| {
            syn::Error::new_spanned(
                other,
                "expected a literal default: a string, a number, `true`/`false`, or `[\"a\", \"b\"]` for a multi-select",
            )
        }),
    }
}

/// The doc comment as a description: lines of a paragraph joined with spaces, paragraphs with
/// a blank line, as rustdoc would render them.
pub(crate) fn doc_description(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.split('\n')
                .map(|line| line.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let paragraphs: Vec<String> = lines
        .split(|line| line.is_empty())
        .filter(|paragraph| !paragraph.is_empty())
        .map(|paragraph| paragraph.join(" "))
        .collect();
    if paragraphs.is_empty() {
        None
    } else {
        Some(paragraphs.join("\n\n"))
    }
}
