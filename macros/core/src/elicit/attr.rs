//! Reading the attributes the derive cares about: `#[elicit(..)]`, the `#[serde(..)]` keys
//! that change wire names or requiredness, and doc comments.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitBool, LitStr, Token, UnOp};

use super::Errors;
use super::case::RenameRule;

/// An attribute value together with the key it was written under, for error spans.
pub(crate) struct Keyed<T> {
    pub key: syn::Path,
    pub value: T,
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

pub(crate) enum DefaultValue {
    Str(LitStr),
    Number(Number),
    Bool(LitBool),
    /// A multi-select default: `default = ["a", "b"]`.
    List(Vec<LitStr>),
}

/// `#[elicit(..)]` on a struct field.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub title: Option<Keyed<LitStr>>,
    pub description: Option<Keyed<LitStr>>,
    pub format: Option<Keyed<LitStr>>,
    pub min: Option<Keyed<Number>>,
    pub max: Option<Keyed<Number>>,
    pub min_length: Option<Keyed<u64>>,
    pub max_length: Option<Keyed<u64>>,
    pub min_items: Option<Keyed<u64>>,
    pub max_items: Option<Keyed<u64>>,
    pub default: Option<Keyed<DefaultValue>>,
}

const FIELD_KEYS: &str = "`title`, `description`, `format`, `min`, `max`, `min_length`, `max_length`, `min_items`, `max_items`, `default`";

/// The string formats the 2026-07-28 `StringSchema` allows.
pub(crate) const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

impl FieldAttrs {
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = FieldAttrs::default();
        for attr in elicit_attrs(attrs) {
            let result = attr.parse_nested_meta(|meta| {
                let key = meta.path.clone();
                let name = key.get_ident().map(ToString::to_string).unwrap_or_default();
                match name.as_str() {
                    "title" => set(&mut out.title, key, meta.value()?.parse()?, errors),
                    "description" => set(&mut out.description, key, meta.value()?.parse()?, errors),
                    "format" => {
                        let format: LitStr = meta.value()?.parse()?;
                        if !FORMATS.contains(&format.value().as_str()) {
                            errors.spanned(
                                &format,
                                format_args!(
                                    "unsupported format `{}`: an elicitation string field takes `email`, `uri`, `date` or `date-time`",
                                    format.value()
                                ),
                            );
                        }
                        set(&mut out.format, key, format, errors);
                    }
                    "min" => set(&mut out.min, key, number(&meta.value()?.parse()?)?, errors),
                    "max" => set(&mut out.max, key, number(&meta.value()?.parse()?)?, errors),
                    "min_length" => set(&mut out.min_length, key, count(&meta)?, errors),
                    "max_length" => set(&mut out.max_length, key, count(&meta)?, errors),
                    "min_items" => set(&mut out.min_items, key, count(&meta)?, errors),
                    "max_items" => set(&mut out.max_items, key, count(&meta)?, errors),
                    "default" => set(&mut out.default, key, default_value(&meta.value()?.parse()?)?, errors),
                    _ => return Err(meta.error(format_args!("unknown `elicit` attribute; a field takes {FIELD_KEYS}"))),
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        out
    }
}

/// `#[elicit(..)]` on a unit-only enum.
#[derive(Default)]
pub(crate) struct ChoiceAttrs {
    /// Titles as the deprecated `enum` + `enumNames` pair instead of `oneOf`.
    pub legacy_enum_names: Option<syn::Path>,
}

impl ChoiceAttrs {
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = ChoiceAttrs::default();
        for attr in elicit_attrs(attrs) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("legacy_enum_names") {
                    if out.legacy_enum_names.is_some() {
                        errors.spanned(&meta.path, "duplicate `legacy_enum_names`");
                    }
                    out.legacy_enum_names = Some(meta.path.clone());
                    Ok(())
                } else {
                    Err(meta.error("unknown `elicit` attribute; an enum takes `legacy_enum_names`"))
                }
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        out
    }
}

/// `#[elicit(title = "..")]` on an enum variant.
pub(crate) fn variant_title(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let mut title: Option<Keyed<LitStr>> = None;
    for attr in elicit_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("title") {
                set(
                    &mut title,
                    meta.path.clone(),
                    meta.value()?.parse()?,
                    errors,
                );
                Ok(())
            } else {
                Err(meta.error("unknown `elicit` attribute; a variant takes `title`"))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    title.map(|t| t.value)
}

/// A struct takes no `#[elicit(..)]` of its own; say so instead of ignoring it.
pub(crate) fn reject_container_attrs(attrs: &[Attribute], errors: &mut Errors) {
    for attr in elicit_attrs(attrs) {
        errors.spanned(
            attr,
            "a form struct takes no `#[elicit(..)]` attribute; put `#[elicit(..)]` on its fields",
        );
    }
}

fn elicit_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("elicit"))
}

fn set<T>(slot: &mut Option<Keyed<T>>, key: syn::Path, value: T, errors: &mut Errors) {
    if slot.is_some() {
        errors.spanned(&key, format_args!("duplicate `{}`", key.to_token_stream()));
    }
    *slot = Some(Keyed { key, value });
}

fn count(meta: &ParseNestedMeta) -> syn::Result<u64> {
    let lit: syn::LitInt = meta.value()?.parse()?;
    lit.base10_parse()
}

fn number(expr: &Expr) -> syn::Result<Number> {
    let (negative, lit) = match expr {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    match lit {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => {
            let magnitude: u64 = int.base10_parse()?;
            let json = if negative {
                let value = i64::try_from(magnitude).map(|m| -m).map_err(|_| {
                    syn::Error::new_spanned(expr, "this integer does not fit in 64 bits")
                })?;
                quote!(#value)
            } else {
                quote!(#magnitude)
            };
            Ok(Number {
                value: sign * magnitude as f64,
                fractional: false,
                json,
            })
        }
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => {
            let value = sign * float.base10_parse::<f64>()?;
            Ok(Number {
                value,
                fractional: true,
                json: quote!(#value),
            })
        }
        _ => Err(syn::Error::new_spanned(
            expr,
            "expected a number literal, such as `0`, `-1` or `2.5`",
        )),
    }
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

/// The `#[serde(..)]` keys on a container that shape the wire.
#[derive(Default)]
pub(crate) struct SerdeContainer {
    pub rename_all: Option<RenameRule>,
    /// `#[serde(default)]`: every field may be left out.
    pub default: bool,
    /// `tag`, `untagged` or `content`: unit variants then no longer arrive as plain strings.
    pub not_plain_strings: Option<syn::Path>,
}

impl SerdeContainer {
    pub(crate) fn parse(attrs: &[Attribute]) -> Self {
        let mut out = SerdeContainer::default();
        serde_metas(attrs, |meta| {
            if meta.path.is_ident("rename_all") {
                out.rename_all = deserialize_name(meta)?
                    .as_deref()
                    .and_then(RenameRule::parse);
            } else if meta.path.is_ident("default") {
                skip_value(meta)?;
                out.default = true;
            } else if meta.path.is_ident("tag")
                || meta.path.is_ident("untagged")
                || meta.path.is_ident("content")
            {
                skip_value(meta)?;
                out.not_plain_strings = Some(meta.path.clone());
            } else {
                skip_value(meta)?;
            }
            Ok(())
        });
        out
    }
}

/// The `#[serde(..)]` keys on a field or variant that shape the wire.
#[derive(Default)]
pub(crate) struct SerdeMember {
    pub rename: Option<String>,
    pub default: bool,
    /// `skip` or `skip_deserializing`: never read from the answer, so never asked.
    pub skip: bool,
    pub flatten: Option<syn::Path>,
}

impl SerdeMember {
    pub(crate) fn parse(attrs: &[Attribute]) -> Self {
        let mut out = SerdeMember::default();
        serde_metas(attrs, |meta| {
            if meta.path.is_ident("rename") {
                if let Some(name) = deserialize_name(meta)? {
                    out.rename = Some(name);
                }
            } else if meta.path.is_ident("default") {
                skip_value(meta)?;
                out.default = true;
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                skip_value(meta)?;
                out.skip = true;
            } else if meta.path.is_ident("flatten") {
                out.flatten = Some(meta.path.clone());
            } else {
                skip_value(meta)?;
            }
            Ok(())
        });
        out
    }
}

/// Visits every `#[serde(..)]` key. Malformed serde attributes are serde's to report, so
/// parse errors here are dropped rather than doubled.
fn serde_metas(attrs: &[Attribute], mut visit: impl FnMut(&ParseNestedMeta) -> syn::Result<()>) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| visit(&meta));
    }
}

/// `key = "name"` or `key(deserialize = "name", serialize = "..")`: the name answers arrive with.
fn deserialize_name(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        let name: LitStr = meta.value()?.parse()?;
        return Ok(Some(name.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            let value: LitStr = inner.value()?.parse()?;
            name = Some(value.value());
        } else {
            skip_value(&inner)?;
        }
        Ok(())
    })?;
    Ok(name)
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}
