//! Checks on what liveness decided to carry: a continuation holds only owned, serializable
//! values, so borrows, closures and uninitialized locals are rejected before rustc sees them
//! (its own errors for these are correct but name the generated code, not the fix).

use std::collections::{BTreeMap, BTreeSet};

use syn::Expr;

use super::ir::*;
use crate::errors::Errors;

const BORROWING_METHODS: &[&str] = &[
    "as_str",
    "as_ref",
    "as_mut",
    "as_slice",
    "as_bytes",
    "as_path",
    "as_deref",
    "as_deref_mut",
    "iter",
    "iter_mut",
    "borrow",
    "borrow_mut",
    "lock",
    "read",
    "write",
    "chars",
    "bytes",
    "lines",
    "keys",
    "values",
    "values_mut",
    "split",
    "split_whitespace",
    "trim",
    "trim_start",
    "trim_end",
    "get",
    "get_mut",
    "first",
    "last",
    "peek",
];

/// Every check on what liveness decided; errors go to `errors`.
pub fn check(body: &Body, handler: &syn::Ident, errors: &mut Errors) {
    check_carried(body, errors);
    check_carried_count(body, handler, errors);
}

fn check_carried(body: &Body, errors: &mut Errors) {
    // The first ask each binding is carried across, for the messages.
    let mut carried: BTreeMap<BindingId, SiteId> = BTreeMap::new();
    for (site, s) in body.sites.iter().enumerate() {
        for &b in &s.live {
            carried.entry(b).or_insert(site);
        }
    }
    for (&b, &site) in &carried {
        let binding = &body.bindings[b];
        let name = &binding.ident;
        let key = body.sites[site]
            .keys
            .first()
            .map(|k| k.key.to_string())
            .unwrap_or_default();
        if binding.kind == BindingKind::Param && binding.mutable {
            // A parameter is extracted afresh from the request every round: changes made to it
            // before the ask would be there on a legacy session and gone on 2026-07-28.
            errors.at(name, format!("`{name}` is a `mut` parameter still used after `ask!({key}: ..)`; every 2026-07-28 round takes the parameters afresh from the request, so changes made before the ask would be lost: drop the `mut` and copy what you change into a local (`let mut {name} = {name};` is carried if its type is serializable)"));
            continue;
        }
        if binding.kind != BindingKind::Local || binding.ident.to_string().starts_with("__mrtr_") {
            continue;
        }
        if binding.uninit {
            errors.at(name, format!("`{name}` is declared without a value and used after `ask!({key}: ..)`; give it a value at its `let`, so it can be carried across the ask"));
        } else if binding.by_ref {
            errors.at(name, format!("`{name}` is a `ref` binding used after `ask!({key}: ..)`; a continuation carries only owned values: bind it by value (clone it if needed), or borrow again after the ask"));
        } else if let Some(init) = &binding.init
            && !annotated_owned(binding)
        {
            if let Some((what, plural)) = closure_like(init) {
                errors.at(
                    name,
                    format!("`{name}` is {what} and is used after `ask!({key}: ..)`; {plural} cannot be carried in a continuation: define it after the ask"),
                );
            } else if let Some(how) = borrows(init) {
                errors.at(name, format!("`{name}` borrows ({how}) and is used after `ask!({key}: ..)`; a continuation carries only owned values: make it owned (`.to_owned()`, `.clone()`, `.to_string()`), or borrow again after the ask; if the value is already owned, write its type on the `let` (`let {name}: T = ..;`)"));
            }
        }
    }
}

/// `let x: T = ..;` with a `T` that is not a reference: the method-name guess in [`borrows`]
/// gives way, and rustc checks that `T` can be carried.
fn annotated_owned(binding: &Binding) -> bool {
    binding
        .ty
        .as_ref()
        .is_some_and(|ty| !matches!(ty, syn::Type::Reference(_)))
}

fn closure_like(init: &Expr) -> Option<(&'static str, &'static str)> {
    match init {
        Expr::Closure(_) => Some(("a closure", "closures")),
        Expr::Async(_) => Some(("an `async` block", "`async` blocks")),
        Expr::Paren(p) => closure_like(&p.expr),
        _ => None,
    }
}

fn borrows(init: &Expr) -> Option<String> {
    match init {
        Expr::Reference(_) => Some("its value starts with `&`".to_owned()),
        Expr::Paren(p) => borrows(&p.expr),
        Expr::MethodCall(call) => {
            let method = call.method.to_string();
            BORROWING_METHODS
                .contains(&method.as_str())
                .then(|| format!("`.{method}()` returns a reference or a borrowing view"))
        }
        Expr::Try(t) => borrows(&t.expr),
        _ => None,
    }
}

/// A step selects the slots it saves with a 64-bit mask (`StepInfo::mask`); each helper site's
/// frame takes one of the 64 bits after the carried locals.
fn check_carried_count(body: &Body, handler: &syn::Ident, errors: &mut Errors) {
    let carried: BTreeSet<BindingId> = body.sites.iter().flat_map(|s| body.carried_at(s)).collect();
    let frames = body.sites.iter().filter(|s| s.helper().is_some()).count();
    if carried.len() + frames > 64 {
        errors.at(
            handler,
            "this handler carries more than 64 locals across its `ask!`s; group some into a struct",
        );
    }
}
