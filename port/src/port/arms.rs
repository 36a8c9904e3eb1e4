//! Legacy result patterns → `Answer` patterns.
//!
//! An elicitation answered `Result<Option<T>, ElicitationError>`; sampling and roots answered
//! `Result<R, ServiceError>`. `mrtr` answers `Answer<T>`: `Accept(T)`, `Decline`, `Cancel`.
//! A legacy match routed each outcome to the first arm whose pattern took it; the rewrite
//! routes each `Answer` variant to the same arm, so every arm keeps its body as written.

use std::collections::BTreeSet;

use syn::{Expr, Pat};

use super::peer::RequestKind;
use crate::source::{Source, range};

/// The `Answer` variants, in the order rewritten patterns list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Variant {
    Accept,
    Decline,
    Cancel,
}

/// What one alternative of a legacy pattern takes, in `Answer` terms.
#[derive(Clone, Debug)]
enum Takes {
    /// `_`: everything, written `_` again.
    Everything,
    /// `Ok(Some(p))` / `Ok(p)`: an accepted value, `Answer::Accept(p)`; `total` when `p` is
    /// irrefutable, so later arms never see an accept.
    Accept {
        inner: String,
        total: bool,
    },
    Decline,
    /// An explicit `Err(UserCancelled)`.
    Cancel,
    /// `Ok(None)`: an accepted form with no content. `mrtr` has no such outcome; a legacy
    /// client that sent it meant "nothing chosen", which is what `Cancel` means.
    NoContent,
    /// `Err(_)`, `Err(e)`: whatever error is left; `binding` if the arm names it.
    AnyError {
        binding: Option<String>,
    },
    /// An error the runtime never answers (`CapabilityNotSupported`, `Service(..)`, ...):
    /// the runtime gates capabilities itself, and a failed round never reaches the handler.
    Unreachable,
    /// A pattern with no `Answer` counterpart the port can prove.
    Unmapped,
}

/// A pattern the port cannot map, and why.
pub struct Unmappable(pub String);

fn alternatives(pat: &Pat, kind: &RequestKind, src: &Source) -> Result<Vec<Takes>, Unmappable> {
    if matches!(kind, RequestKind::ElicitSchema { .. }) {
        // The legacy result is a struct (`ElicitResult`), read by field: it stays, rebuilt.
        return Err(Unmappable(
            "`create_elicitation` answers an `ElicitResult`, read by its fields".into(),
        ));
    }
    let elicit = matches!(kind, RequestKind::Elicit { .. });
    match pat {
        Pat::Wild(_) => Ok(vec![Takes::Everything]),
        Pat::Paren(p) => alternatives(&p.pat, kind, src),
        Pat::Or(or) => {
            let mut all = Vec::new();
            for case in &or.cases {
                all.extend(alternatives(case, kind, src)?);
            }
            Ok(all)
        }
        Pat::TupleStruct(ts) if ts.elems.len() == 1 && *kind == RequestKind::ElicitUrl => {
            Ok(vec![url_alternative(&last_segment(&ts.path), &ts.elems[0])])
        }
        Pat::TupleStruct(ts) if ts.elems.len() == 1 => {
            let variant = last_segment(&ts.path);
            let inner = &ts.elems[0];
            match (variant.as_str(), elicit) {
                ("Ok", true) => ok_option(inner, src),
                ("Ok", false) => Ok(vec![Takes::Accept {
                    inner: src.text_of(inner).to_string(),
                    total: irrefutable(inner),
                }]),
                ("Err", _) => Ok(vec![error_alternative(inner, elicit)]),
                _ => Err(Unmappable(format!(
                    "`{}` is not a pattern of the request's `Result`",
                    src.text_of(pat)
                ))),
            }
        }
        Pat::Ident(i) if i.subpat.is_none() => Err(Unmappable(format!(
            "`{}` binds the whole legacy `Result`, which has no `Answer` equivalent",
            i.ident
        ))),
        _ => Err(Unmappable(format!(
            "the pattern `{}` has no `Answer` equivalent the port can prove",
            src.text_of(pat)
        ))),
    }
}

/// A URL elicitation answered `Ok(action)`: each action is its `Answer`; an error is one the
/// runtime never hands the handler.
fn url_alternative(variant: &str, inner: &Pat) -> Takes {
    let action = match inner {
        Pat::Path(p) => last_segment(&p.path),
        Pat::Ident(i) if i.subpat.is_none() => i.ident.to_string(),
        Pat::Wild(_) => "_".into(),
        _ => String::new(),
    };
    match (variant, action.as_str()) {
        ("Ok", "Accept") => Takes::Accept {
            inner: "()".into(),
            total: true,
        },
        ("Ok", "Decline") => Takes::Decline,
        ("Ok", "Cancel") => Takes::Cancel,
        ("Ok", "_") => Takes::Everything,
        ("Err", _) => Takes::Unreachable,
        _ => Takes::Unmapped,
    }
}

fn ok_option(inner: &Pat, src: &Source) -> Result<Vec<Takes>, Unmappable> {
    match inner {
        Pat::TupleStruct(ts) if last_segment(&ts.path) == "Some" && ts.elems.len() == 1 => {
            Ok(vec![Takes::Accept {
                inner: src.text_of(&ts.elems[0]).to_string(),
                total: irrefutable(&ts.elems[0]),
            }])
        }
        Pat::Ident(i) if i.ident == "None" && i.subpat.is_none() => Ok(vec![Takes::NoContent]),
        Pat::Path(p) if p.path.is_ident("None") => Ok(vec![Takes::NoContent]),
        Pat::Wild(_) => Ok(vec![
            Takes::Accept {
                inner: "_".into(),
                total: true,
            },
            Takes::NoContent,
        ]),
        _ => Err(Unmappable(format!(
            "`Ok({})` binds the `Option` itself; `Answer` has no such value",
            src.text_of(inner)
        ))),
    }
}

fn error_alternative(inner: &Pat, elicit: bool) -> Takes {
    match inner {
        Pat::Wild(_) => Takes::AnyError { binding: None },
        Pat::Ident(i) if i.subpat.is_none() && !starts_upper(&i.ident.to_string()) => {
            Takes::AnyError {
                binding: Some(i.ident.to_string()),
            }
        }
        Pat::Path(p) if elicit => match last_segment(&p.path).as_str() {
            "UserDeclined" => Takes::Decline,
            "UserCancelled" => Takes::Cancel,
            _ => Takes::Unreachable,
        },
        Pat::Ident(i) if elicit => match i.ident.to_string().as_str() {
            "UserDeclined" => Takes::Decline,
            "UserCancelled" => Takes::Cancel,
            _ => Takes::Unreachable,
        },
        _ => Takes::Unreachable,
    }
}

/// The first arm that takes any error (`Err(_)`, `Err(e)`, `_`): where a legacy client
/// without the capability ended up. Its offset.
pub fn catch_all_error(arms: &[syn::Arm], kind: &RequestKind, src: &Source) -> Option<usize> {
    arms.iter().find_map(|arm| {
        let takes = alternatives(&arm.pat, kind, src).ok()?;
        takes
            .iter()
            .any(|t| matches!(t, Takes::AnyError { .. } | Takes::Everything))
            .then(|| range(&arm.pat).start)
    })
}

/// `Err(ElicitationError::CapabilityNotSupported)`, alone in its arm.
pub fn is_capability_arm(pat: &Pat) -> bool {
    match pat {
        Pat::TupleStruct(ts) if last_segment(&ts.path) == "Err" && ts.elems.len() == 1 => {
            match &ts.elems[0] {
                Pat::Path(p) => last_segment(&p.path) == "CapabilityNotSupported",
                Pat::Ident(i) => i.ident == "CapabilityNotSupported",
                _ => false,
            }
        }
        Pat::Paren(p) => is_capability_arm(&p.pat),
        _ => false,
    }
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}

fn irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Ident(i) => i.subpat.is_none() && !starts_upper(&i.ident.to_string()),
        _ => false,
    }
}

fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// One rewritten arm: its new pattern, or `None` when no `Answer` reaches it any more.
pub struct MappedArm {
    pub pattern: Option<String>,
}

/// What a rewritten `match` looks like.
pub struct MappedMatch {
    pub arms: Vec<MappedArm>,
    /// An `Ok(None)` arm whose body differed from the arm that now takes `Cancel`.
    pub merged_no_content: Vec<usize>,
}

/// Maps every arm of a `match` on a legacy result. Each `Answer` variant goes to the arm the
/// corresponding legacy outcome went to: `Decline` where `Err(UserDeclined)` went, `Cancel`
/// where `Err(UserCancelled)` went (an `Ok(None)` arm only if no arm took that error), and
/// `Accept` where `Ok(Some(_))` went.
pub fn map_match(
    arms: &[syn::Arm],
    kind: &RequestKind,
    src: &Source,
) -> Result<MappedMatch, Unmappable> {
    let per_arm: Vec<Vec<Takes>> = arms
        .iter()
        .map(|arm| alternatives(&arm.pat, kind, src))
        .collect::<Result<_, _>>()?;
    let mut claimed: BTreeSet<Variant> = BTreeSet::new();
    let mut cancel_arm = None;
    let mut mapped = Vec::new();
    let mut no_content_arms = Vec::new();
    for (index, (arm, takes)) in arms.iter().zip(&per_arm).enumerate() {
        let guarded = arm.guard.is_some();
        let mut variants: Vec<(Variant, String)> = Vec::new();
        let mut everything = false;
        for take in takes {
            match take {
                Takes::Everything => everything = true,
                Takes::Accept { inner, total } => {
                    if !claimed.contains(&Variant::Accept) {
                        variants.push((Variant::Accept, format!("Answer::Accept({inner})")));
                        if *total && !guarded {
                            claimed.insert(Variant::Accept);
                        }
                    }
                }
                Takes::Decline => push_error(&mut variants, &claimed, Variant::Decline),
                Takes::Cancel => push_error(&mut variants, &claimed, Variant::Cancel),
                Takes::AnyError { binding } => {
                    let before = variants.len();
                    push_error(&mut variants, &claimed, Variant::Decline);
                    push_error(&mut variants, &claimed, Variant::Cancel);
                    if let Some(name) = binding
                        && variants.len() > before
                        && mentions(&arm.body, name)
                    {
                        return Err(Unmappable(format!(
                            "the arm binding `{name}` also takes a decline or cancel and uses the error value, which `Answer` does not carry"
                        )));
                    }
                }
                Takes::NoContent => no_content_arms.push(index),
                Takes::Unreachable => {}
                Takes::Unmapped => {
                    return Err(Unmappable(format!(
                        "the pattern `{}` has no `Answer` equivalent the port can prove",
                        src.text_of(&arm.pat)
                    )));
                }
            }
        }
        if everything {
            mapped.push(MappedArm {
                pattern: Some("_".into()),
            });
            if !guarded {
                claimed.extend([Variant::Accept, Variant::Decline, Variant::Cancel]);
            }
            continue;
        }
        variants.sort_by_key(|(v, _)| *v);
        if !guarded {
            for (v, _) in &variants {
                if *v != Variant::Accept {
                    claimed.insert(*v);
                }
            }
        }
        if variants.iter().any(|(v, _)| *v == Variant::Cancel) && cancel_arm.is_none() {
            cancel_arm = Some(index);
        }
        let pattern = (!variants.is_empty()).then(|| {
            variants
                .iter()
                .map(|(_, p)| p.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        });
        mapped.push(MappedArm { pattern });
    }
    // No arm took a cancellation error: then `Ok(None)`'s arm is the cancel arm, as the
    // closest legacy outcome ("nothing was chosen").
    let mut merged = Vec::new();
    match cancel_arm {
        Some(cancel) => {
            for &index in &no_content_arms {
                if index != cancel
                    && mapped[index].pattern.is_none()
                    && body_text(&arms[index].body) != body_text(&arms[cancel].body)
                {
                    merged.push(index);
                }
            }
        }
        None => {
            if let Some(&first) = no_content_arms.first() {
                let arm = &mut mapped[first];
                arm.pattern = Some(match arm.pattern.take() {
                    Some(p) => format!("{p} | Answer::Cancel"),
                    None => "Answer::Cancel".into(),
                });
            }
        }
    }
    Ok(MappedMatch {
        arms: mapped,
        merged_no_content: merged,
    })
}

fn push_error(variants: &mut Vec<(Variant, String)>, claimed: &BTreeSet<Variant>, v: Variant) {
    if !claimed.contains(&v) && !variants.iter().any(|(w, _)| *w == v) {
        let text = match v {
            Variant::Decline => "Answer::Decline",
            _ => "Answer::Cancel",
        };
        variants.push((v, text.into()));
    }
}

/// One pattern tested on its own (`if let`, `let .. else`, `matches!`): everything it does not
/// take goes to the other branch, so it must take exactly the `Answer` variants its legacy
/// outcomes became. `Ok(None)` alone would take cancellations the legacy code sent elsewhere.
pub fn map_single(pat: &Pat, kind: &RequestKind, src: &Source) -> Result<String, Unmappable> {
    let takes = alternatives(pat, kind, src)?;
    let mut variants: Vec<(Variant, String)> = Vec::new();
    let mut no_content = false;
    let mut cancel = false;
    for take in &takes {
        match take {
            Takes::Everything => return Ok("_".into()),
            Takes::Accept { inner, .. } => {
                variants.push((Variant::Accept, format!("Answer::Accept({inner})")))
            }
            Takes::Decline => variants.push((Variant::Decline, "Answer::Decline".into())),
            Takes::Cancel => {
                cancel = true;
                variants.push((Variant::Cancel, "Answer::Cancel".into()))
            }
            Takes::AnyError {
                binding: Some(name),
            } => {
                return Err(Unmappable(format!(
                    "`Err({name})` binds the error value, which `Answer` does not carry"
                )));
            }
            Takes::AnyError { binding: None } => {
                cancel = true;
                variants.push((Variant::Decline, "Answer::Decline".into()));
                variants.push((Variant::Cancel, "Answer::Cancel".into()));
            }
            Takes::NoContent => no_content = true,
            Takes::Unreachable => {}
            Takes::Unmapped => {
                return Err(Unmappable(format!(
                    "the pattern `{}` has no `Answer` equivalent the port can prove",
                    src.text_of(pat)
                )));
            }
        }
    }
    if no_content && !cancel {
        return Err(Unmappable(
            "`Ok(None)` without the cancellation error: `Answer::Cancel` covers both, so the branches would change".into(),
        ));
    }
    variants.sort_by_key(|(v, _)| *v);
    variants.dedup_by_key(|(v, _)| *v);
    if variants.is_empty() {
        return Err(Unmappable(
            "the pattern only takes errors the runtime never answers".into(),
        ));
    }
    Ok(variants
        .into_iter()
        .map(|(_, p)| p)
        .collect::<Vec<_>>()
        .join(" | "))
}

fn body_text(body: &Expr) -> String {
    quote::ToTokens::to_token_stream(body).to_string()
}

/// Whether `name` appears anywhere in the expression: as a token, or captured by a format
/// string (`"{name}"`, `"{name:?}"`).
pub fn mentions(expr: &Expr, name: &str) -> bool {
    fn walk(tokens: proc_macro2::TokenStream, name: &str) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == name,
            proc_macro2::TokenTree::Literal(l) => {
                let text = l.to_string();
                text.contains(&format!("{{{name}}}")) || text.contains(&format!("{{{name}:"))
            }
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
            _ => false,
        })
    }
    walk(quote::ToTokens::to_token_stream(expr), name)
}

pub fn arm_range(arm: &syn::Arm) -> std::ops::Range<usize> {
    let start = arm
        .attrs
        .first()
        .map_or_else(|| range(&arm.pat).start, |a| range(a).start);
    let end = match &arm.comma {
        Some(c) => range(c).end,
        None => range(&*arm.body).end,
    };
    start..end
}
