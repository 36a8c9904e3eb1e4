//! The bindings a pattern introduces.

use syn::{Ident, Pat};

pub struct PatBinding {
    pub mutable: bool,
    pub by_ref: bool,
}

/// Every identifier a pattern binds, in source order.
///
/// A bare identifier starting with an upper-case letter (`None`, `Empty`) is read as a unit
/// variant or constant, as rustc's naming conventions suggest, not as a binding.
pub fn bound_idents(pat: &Pat) -> Vec<(Ident, PatBinding)> {
    let mut out = Vec::new();
    collect(pat, &mut out);
    out
}

fn collect(pat: &Pat, out: &mut Vec<(Ident, PatBinding)>) {
    match pat {
        Pat::Ident(p) => {
            let looks_like_constant = p.subpat.is_none()
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
                collect(sub, out);
            }
        }
        Pat::Guard(g) => collect(&g.pat, out),
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                collect(first, out);
            }
        }
        Pat::Paren(p) => collect(&p.pat, out),
        Pat::Reference(r) => collect(&r.pat, out),
        Pat::Slice(s) => s.elems.iter().for_each(|p| collect(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| collect(&f.pat, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| collect(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| collect(p, out)),
        Pat::Type(t) => collect(&t.pat, out),
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
