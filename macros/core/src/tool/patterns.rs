//! The bindings a pattern introduces.

use syn::{Ident, Pat};

pub struct PatBinding {
    pub mutable: bool,
    pub by_ref: bool,
}

/// Every identifier a refutable pattern (a `match` arm, `if let`, `let .. else`) binds, in
/// source order.
///
/// A bare identifier starting with an upper-case letter (`None`, `Empty`) is read there as a
/// unit variant or constant, as rustc's naming conventions suggest, not as a binding.
pub fn bound_idents(pat: &Pat) -> Vec<(Ident, PatBinding)> {
    let mut out = Vec::new();
    collect(pat, false, &mut out);
    out
}

/// The names [`bound_idents`] finds, for scope tracking by name.
pub fn bound_names(pat: &Pat) -> Vec<String> {
    bound_idents(pat)
        .into_iter()
        .map(|(ident, _)| ident.to_string())
        .collect()
}

/// Every identifier an irrefutable pattern (a plain `let`, a `for`) binds: there a bare
/// identifier is a new local whatever its case, since a variant would make it refutable.
pub fn let_bound_idents(pat: &Pat) -> Vec<(Ident, PatBinding)> {
    let mut out = Vec::new();
    collect(pat, true, &mut out);
    out
}

fn collect(pat: &Pat, irrefutable: bool, out: &mut Vec<(Ident, PatBinding)>) {
    let recurse = |pat: &Pat, out: &mut Vec<(Ident, PatBinding)>| collect(pat, irrefutable, out);
    match pat {
        Pat::Ident(p) => {
            let looks_like_constant = !irrefutable
                && p.subpat.is_none()
                && p.by_ref.is_none()
                && p.mutability.is_none()
                && p.ident.to_string().starts_with(|c: char| c.is_uppercase());
            if !looks_like_constant {
                out.push((
                    p.ident.clone(),
                    PatBinding {
                        mutable: p.mutability.is_some(),
                        by_ref: p.by_ref.is_some(),
                    },
                ));
            }
            if let Some((_, sub)) = &p.subpat {
                recurse(sub, out);
            }
        }
        Pat::Guard(g) => recurse(&g.pat, out),
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                recurse(first, out);
            }
        }
        Pat::Paren(p) => recurse(&p.pat, out),
        Pat::Reference(r) => recurse(&r.pat, out),
        Pat::Slice(s) => s.elems.iter().for_each(|p| recurse(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| recurse(&f.pat, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| recurse(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| recurse(p, out)),
        Pat::Type(t) => recurse(&t.pat, out),
        _ => {}
    }
}

/// The type written on a single-identifier pattern (`let x: T`), to copy onto its slot.
pub fn annotation(pat: &Pat) -> Option<syn::Type> {
    match pat {
        Pat::Type(t) if matches!(&*t.pat, Pat::Ident(i) if i.subpat.is_none()) => {
            Some((*t.ty).clone())
        }
        _ => None,
    }
}
