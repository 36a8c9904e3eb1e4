//! `#[derive(mrtr::Elicit)]` on every elicited type defined in the file, and on the enums its
//! fields choose from (an elicitation form's single-select fields).

use std::collections::{BTreeMap, BTreeSet};

use syn::{Attribute, Fields, Item, Type};

use crate::edit::Edits;
use crate::report::{FileReport, Site};
use crate::source::{Source, range, span_range};

fn last_segment(ty: &str) -> String {
    ty.rsplit("::").next().unwrap_or(ty).to_string()
}

/// The enum a field chooses from: `Env`, `Option<Env>`, `Vec<Env>`.
fn choice_type(ty: &Type) -> Option<String> {
    let Type::Path(p) = ty else { return None };
    let segment = p.path.segments.last()?;
    match &segment.arguments {
        syn::PathArguments::None => Some(segment.ident.to_string()),
        syn::PathArguments::AngleBracketed(args)
            if segment.ident == "Option" || segment.ident == "Vec" =>
        {
            match args.args.first()? {
                syn::GenericArgument::Type(inner) => choice_type(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

fn derives_elicit(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            quote::ToTokens::to_token_stream(a)
                .to_string()
                .contains("Elicit")
        })
}

fn all_items(items: &[Item]) -> Vec<&Item> {
    let mut out = Vec::new();
    for item in items {
        out.push(item);
        if let Item::Mod(m) = item
            && let Some((_, inner)) = &m.content
        {
            out.extend(all_items(inner));
        }
    }
    out
}

/// `elicited`: the types this file elicits (with where); `elsewhere`: the types other files
/// elicit and did not define, derived here if this file defines them.
pub fn add_elicit(
    src: &Source,
    elicited: &BTreeMap<String, usize>,
    elsewhere: &BTreeSet<String>,
    edits: &mut Edits,
    report: &mut FileReport,
) {
    let items = all_items(&src.file.items);
    let mut wanted: BTreeSet<String> = elicited.keys().map(|t| last_segment(t)).collect();
    wanted.extend(elsewhere.iter().cloned());
    // The enums the elicited structs' fields choose from are part of the same form.
    for item in &items {
        if let Item::Struct(s) = item
            && wanted.contains(&s.ident.to_string())
            && let Fields::Named(fields) = &s.fields
        {
            let choices: Vec<String> = fields
                .named
                .iter()
                .filter_map(|f| choice_type(&f.ty))
                .collect();
            for choice in choices {
                let is_enum = items
                    .iter()
                    .any(|i| matches!(i, Item::Enum(e) if e.ident == choice));
                if is_enum {
                    wanted.insert(choice);
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    for item in &items {
        let (ident, attrs, start) = match item {
            Item::Struct(s) => (&s.ident, &s.attrs, range(&s.struct_token).start),
            Item::Enum(e) => (&e.ident, &e.attrs, range(&e.enum_token).start),
            _ => continue,
        };
        let name = ident.to_string();
        if !wanted.contains(&name) {
            continue;
        }
        found.insert(name.clone());
        report.defined_types.push(name.clone());
        if derives_elicit(attrs) {
            continue;
        }
        let derive = attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::List(list) if a.path().is_ident("derive") => Some(list),
            _ => None,
        });
        match derive {
            Some(list) => {
                let close = span_range(list.delimiter.span().close()).start;
                let sep = if list.tokens.to_string().trim_end().ends_with(',') {
                    " "
                } else {
                    ", "
                };
                edits.insert(close, format!("{sep}mrtr::Elicit"));
            }
            None => {
                let at = item_start(item, start);
                edits.insert(
                    at,
                    format!("#[derive(mrtr::Elicit)]\n{}", src.indent_at(at)),
                );
            }
        }
        report.derives.push(name);
    }
    for (ty, &offset) in elicited {
        let name = last_segment(ty);
        if !found.contains(&name) {
            report.foreign_types.push((
                name.clone(),
                Site::at(
                    src,
                    offset,
                    format!("`{ty}` is elicited but defined in no file given to this run"),
                    format!("add `mrtr::Elicit` to the derives of `{name}` where it is defined"),
                ),
            ));
        }
    }
}

fn item_start(item: &Item, keyword: usize) -> usize {
    let vis = match item {
        Item::Struct(s) => &s.vis,
        Item::Enum(e) => &e.vis,
        _ => return keyword,
    };
    match vis {
        syn::Visibility::Inherited => keyword,
        v => range(v).start,
    }
}
