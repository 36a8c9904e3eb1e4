//! The `use mrtr::{..}` line the rewritten code needs, placed where rustfmt keeps it.

use std::collections::BTreeSet;

use syn::{Item, UseTree};

use crate::edit::Edits;
use crate::source::{Source, range};

#[derive(Default)]
pub struct Needs {
    pub ask: bool,
    pub answer: bool,
    pub caps: bool,
    pub mrtr_tool: bool,
    pub mrtr_helper: bool,
}

fn imported(tree: &UseTree, under_mrtr: bool, out: &mut BTreeSet<String>) {
    match tree {
        UseTree::Path(p) if under_mrtr || p.ident == "mrtr" => imported(&p.tree, true, out),
        UseTree::Name(n) if under_mrtr => {
            out.insert(n.ident.to_string());
        }
        UseTree::Rename(r) if under_mrtr => {
            out.insert(r.rename.to_string());
        }
        UseTree::Glob(_) if under_mrtr => {
            out.insert("*".into());
        }
        UseTree::Group(g) => g.items.iter().for_each(|t| imported(t, under_mrtr, out)),
        _ => {}
    }
}

fn root(tree: &UseTree) -> String {
    match tree {
        UseTree::Path(p) => p.ident.to_string(),
        UseTree::Name(n) => n.ident.to_string(),
        UseTree::Rename(r) => r.ident.to_string(),
        _ => String::new(),
    }
}

pub fn add(src: &Source, needs: &Needs, edits: &mut Edits) {
    let mut have = BTreeSet::new();
    let uses: Vec<&syn::ItemUse> = src
        .file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Use(u) => Some(u),
            _ => None,
        })
        .collect();
    for u in &uses {
        imported(&u.tree, false, &mut have);
    }
    let wanted = [
        (needs.answer, "Answer"),
        (needs.caps, "ClientCaps"),
        (needs.ask, "ask"),
        (needs.mrtr_helper, "mrtr_helper"),
        (needs.mrtr_tool, "mrtr_tool"),
    ];
    // `mrtr::prelude::*` or `mrtr::*` already brings them.
    if have.contains("*") {
        return;
    }
    let mut names: Vec<&str> = wanted
        .iter()
        .filter(|(needed, name)| *needed && !have.contains(*name))
        .map(|(_, name)| *name)
        .collect();
    if names.is_empty() {
        return;
    }
    names.sort();
    let line = match names.as_slice() {
        [one] => format!("use mrtr::{one};\n"),
        many => format!("use mrtr::{{{}}};\n", many.join(", ")),
    };
    // In the first group of `use` items, before the first that sorts after `mrtr`, as rustfmt
    // orders them; after the file's inner attributes when it has no `use` at all.
    let at = match uses
        .iter()
        .find(|u| u.leading_colon.is_none() && root(&u.tree).as_str() > "mrtr")
    {
        Some(after) => src.line_start(range(*after).start),
        None => match uses.last() {
            Some(last) => line_after(src, range(*last).end),
            None => match src.file.attrs.last() {
                Some(attr) => line_after(src, range(attr).end),
                None => 0,
            },
        },
    };
    edits.insert(at, line);
}

fn line_after(src: &Source, offset: usize) -> usize {
    src.text[offset..]
        .find('\n')
        .map_or(src.text.len(), |i| offset + i + 1)
}
