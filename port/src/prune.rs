//! The rmcp imports the port made unused (`Peer`, `RoleServer`, `ElicitationError`, ...) are
//! removed, so a crate built with `-D warnings` still builds. Imports that were already unused
//! before the port are the user's business and stay.

use std::collections::BTreeSet;
use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Item, UseTree};

use crate::edit::Edits;
use crate::source::{Source, range};

/// The names a port can make unused: everything else the port leaves alone.
const RETIRED: &[&str] = &[
    "ElicitRequestParams",
    "ElicitationAction",
    "ElicitationError",
    "ElicitationMode",
    "Peer",
    "RequestContext",
    "RoleServer",
    "ServiceError",
];

fn idents(stream: TokenStream, out: &mut BTreeSet<String>) {
    for tt in stream {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Every identifier the file uses outside its `use` items.
fn used(file: &syn::File) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in &file.items {
        if !matches!(item, Item::Use(_)) {
            idents(item.to_token_stream(), &mut out);
        }
    }
    out
}

pub fn prune(before: &Source, after: &str) -> String {
    let Ok(new) = Source::parse(after.to_string()) else {
        return after.to_string();
    };
    let was = used(&before.file);
    let now = used(&new.file);
    let gone: BTreeSet<&str> = RETIRED
        .iter()
        .copied()
        .filter(|n| was.contains(*n) && !now.contains(*n))
        .collect();
    if gone.is_empty() {
        return after.to_string();
    }
    let mut edits = Edits::default();
    for item in &new.file.items {
        let Item::Use(u) = item else { continue };
        match &u.tree {
            tree if only_gone(tree, &gone) => edits.delete(new.whole_lines(range(u))),
            tree => prune_tree(&new, tree, &gone, &mut edits),
        }
    }
    edits.apply(after).unwrap_or_else(|_| after.to_string())
}

/// Whether every name the tree imports is one of `gone`.
fn only_gone(tree: &UseTree, gone: &BTreeSet<&str>) -> bool {
    match tree {
        UseTree::Path(p) => only_gone(&p.tree, gone),
        UseTree::Name(n) => gone.contains(n.ident.to_string().as_str()),
        UseTree::Group(g) => g.items.iter().all(|t| only_gone(t, gone)),
        _ => false,
    }
}

fn prune_tree(src: &Source, tree: &UseTree, gone: &BTreeSet<&str>, edits: &mut Edits) {
    match tree {
        UseTree::Path(p) => prune_tree(src, &p.tree, gone, edits),
        UseTree::Group(g) => {
            let pairs: Vec<(Range<usize>, Option<Range<usize>>, bool)> = g
                .items
                .pairs()
                .map(|p| {
                    (
                        range(*p.value()),
                        p.punct().map(|c| range(*c)),
                        only_gone(p.value(), gone),
                    )
                })
                .collect();
            let last_kept = pairs.iter().rposition(|(_, _, drop)| !drop);
            for (i, (item, comma, drop)) in pairs.iter().enumerate() {
                if !drop {
                    if let UseTree::Group(_) | UseTree::Path(_) = &g.items[i] {
                        prune_tree(src, &g.items[i], gone, edits);
                    }
                    continue;
                }
                // Up to the next item (or the closing brace): the separator goes with it; a
                // dropped tail after the last kept item takes that item's comma instead.
                let span = match (comma, last_kept) {
                    (_, Some(k)) if i > k => match &pairs[i - 1].1 {
                        Some(prev) if i - 1 == k => prev.start..item.end,
                        _ => item.start..comma.as_ref().map_or(item.end, |c| c.end),
                    },
                    (Some(c), _) => {
                        let next = pairs.get(i + 1).map_or(c.end, |(r, _, _)| r.start);
                        item.start..next
                    }
                    (None, _) => item.clone(),
                };
                edits.delete(src.whole_lines(span));
            }
        }
        _ => {}
    }
}
