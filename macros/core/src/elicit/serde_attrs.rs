//! What serde's own attributes say about the wire, read by serde's parser
//! (`serde_derive_internals`), so the schema names and requires exactly what the answer is
//! decoded with: wire names after `rename`/`rename_all`, `default`, `skip_deserializing`,
//! `flatten`, and whether a unit variant still arrives as a plain string.

use std::collections::HashMap;

use proc_macro2::{Span, TokenTree};
use serde_derive_internals::{Ctxt, Derive, ast, attr};
use syn::{Attribute, DeriveInput};

/// serde's view of one field or variant.
pub(crate) struct Member {
    /// The name the answer's key or value arrives under.
    pub name: String,
    /// `#[serde(default)]` on the member or its container: the client may leave it out.
    pub default: bool,
    /// `skip` or `skip_deserializing`: never read from the answer, so never asked.
    pub skip: bool,
    /// Where `flatten` is written.
    pub flatten: Option<Span>,
}

/// serde's view of a struct or enum, members keyed by their Rust identifier.
#[derive(Default)]
pub(crate) struct Serde {
    pub members: HashMap<String, Member>,
    /// Where `tag`, `content` or `untagged` is written: unit variants then no longer arrive as
    /// plain strings.
    pub not_plain_strings: Option<Span>,
}

impl Serde {
    /// Malformed serde attributes are serde's to report, so serde's own errors are dropped here
    /// rather than shown twice.
    pub(crate) fn read(input: &DeriveInput) -> Self {
        let context = Ctxt::new();
        let private = syn::Ident::new("__private", Span::call_site());
        let container = ast::Container::from_ast(&context, input, Derive::Deserialize, &private);
        let _ = context.check();
        let Some(container) = container else {
            return Serde::default();
        };
        let container_default = !matches!(container.attrs.default(), attr::Default::None);
        let mut members = HashMap::new();
        match &container.data {
            ast::Data::Struct(_, fields) => {
                for field in fields {
                    let Some(ident) = &field.original.ident else {
                        continue;
                    };
                    members.insert(
                        ident.to_string(),
                        Member {
                            name: field.attrs.name().deserialize_name().value.clone(),
                            default: container_default
                                || !matches!(field.attrs.default(), attr::Default::None),
                            skip: field.attrs.skip_deserializing(),
                            flatten: field
                                .attrs
                                .flatten()
                                .then(|| key_span(&field.original.attrs, &["flatten"]))
                                .flatten(),
                        },
                    );
                }
            }
            ast::Data::Enum(variants) => {
                for variant in variants {
                    members.insert(
                        variant.ident.to_string(),
                        Member {
                            name: variant.attrs.name().deserialize_name().value.clone(),
                            default: false,
                            skip: variant.attrs.skip_deserializing(),
                            flatten: None,
                        },
                    );
                }
            }
        }
        let not_plain_strings = match container.attrs.tag() {
            attr::TagType::External => None,
            _ => {
                key_span(&input.attrs, &["tag", "content", "untagged"]).or(Some(input.ident.span()))
            }
        };
        Serde {
            members,
            not_plain_strings,
        }
    }
}

/// The span of the first of `keys` written inside a `#[serde(..)]`, for an error at that word.
fn key_span(attrs: &[Attribute], keys: &[&str]) -> Option<Span> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::List(list) => Some(list.tokens.clone()),
            _ => None,
        })
        .flat_map(|tokens| tokens.into_iter())
        .find_map(|tree| match tree {
            TokenTree::Ident(ident) if keys.iter().any(|key| ident == key) => Some(ident.span()),
            _ => None,
        })
}
