//! An `ask!` that a statement evaluates before anything else is moved into a `let` of its own:
//! `match ask!(k: ..) { .. }`, `if let Answer::Accept(t) = ask!(k: ..) { .. }`,
//! `let s = ask!(k: helper(..))?;`, `ask!(k: ..).is_accept()`, `return ask!(..)`.
//!
//! This is what legacy code becomes when each awaited client request is replaced by an `ask!`
//! (`match peer.elicit::<T>(..).await { .. }`), and it is sound: nothing of the statement runs
//! before the ask in either form, and everything after it runs once the answer is there. An ask
//! that something else is evaluated before (`f(g(), ask!(..))`, the right side of `&&`, a loop
//! condition evaluated every iteration) stays where it is and is reported as a sub-expression.

use quote::format_ident;
use syn::{Expr, Local, LocalInit, Pat, Stmt};

use crate::tool::ask::is_ask;
use crate::tool::syntax::is_compound_assignment;

/// The `let`s to put before `stmt` (in order) and what is left of it, or `None` when its first
/// evaluated expression is not an `ask!` (or the statement is already a form the lowering
/// splits: a `let` or assignment whose whole value is the ask, an ask on its own).
pub fn hoist(stmt: &Stmt, next: &mut usize) -> Option<(Vec<Stmt>, Stmt)> {
    if is_direct(stmt) {
        return None;
    }
    let mut rest = stmt.clone();
    let mut lets = Vec::new();
    // Each pass hoists one; the next first-evaluated ask, if any, goes next (`f(ask!(a), ask!(b))`
    // once `a`'s answer is a local).
    while let Some(slot) = first_ask(&mut rest) {
        let name = format_ident!("__mrtr_h{}", *next);
        *next += 1;
        let ask = std::mem::replace(slot, syn::parse_quote!(#name));
        lets.push(let_stmt(name, ask));
    }
    (!lets.is_empty()).then_some((lets, rest))
}

/// The forms the lowering splits as they are.
fn is_direct(stmt: &Stmt) -> bool {
    let whole_ask = |expr: &Expr| matches!(peel(expr), Expr::Macro(m) if is_ask(&m.mac));
    match stmt {
        Stmt::Local(Local {
            init: Some(LocalInit { expr, .. }),
            ..
        }) => whole_ask(expr),
        Stmt::Macro(m) => is_ask(&m.mac),
        Stmt::Expr(Expr::Assign(assign), _) => {
            whole_ask(&assign.right) && matches!(&*assign.left, Expr::Path(_))
        }
        Stmt::Expr(expr, _) => whole_ask(expr),
        _ => false,
    }
}

fn peel(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => peel(&p.expr),
        Expr::Group(g) => peel(&g.expr),
        other => other,
    }
}

fn let_stmt(name: syn::Ident, init: Expr) -> Stmt {
    let pat: Pat = syn::parse_quote!(#name);
    syn::parse_quote!(let #pat = #init;)
}

/// The ask the statement evaluates first, when nothing with an effect comes before it.
fn first_ask(stmt: &mut Stmt) -> Option<&mut Expr> {
    match stmt {
        Stmt::Local(Local {
            init: Some(LocalInit { expr, .. }),
            ..
        }) => first_in(expr),
        Stmt::Expr(expr, _) => first_in(expr),
        _ => None,
    }
}

/// Walks the operands evaluated first: the ask itself, or the first operand that is not a plain
/// local or literal (reading those has no effect, so an ask after them is still first).
fn first_in(expr: &mut Expr) -> Option<&mut Expr> {
    if let Expr::Macro(m) = expr {
        return is_ask(&m.mac).then_some(expr);
    }
    match expr {
        Expr::Paren(e) => first_in(&mut e.expr),
        Expr::Group(e) => first_in(&mut e.expr),
        Expr::MethodCall(e) => first_of(std::iter::once(&mut *e.receiver).chain(e.args.iter_mut())),
        Expr::Try(e) => first_in(&mut e.expr),
        Expr::Await(e) => first_in(&mut e.base),
        Expr::Field(e) => first_in(&mut e.base),
        Expr::Unary(e) => first_in(&mut e.expr),
        Expr::Cast(e) => first_in(&mut e.expr),
        Expr::Reference(e) => first_in(&mut e.expr),
        Expr::Index(e) => first_in(&mut e.expr),
        // `x += ..`: for primitive operands the right side is evaluated first, for others the
        // place: not worth guessing.
        Expr::Binary(e) if !is_compound_assignment(&e.op) => first_in(&mut e.left),
        Expr::Call(e) if matches!(&*e.func, Expr::Path(_)) => first_of(e.args.iter_mut()),
        Expr::Tuple(e) => first_of(e.elems.iter_mut()),
        Expr::Array(e) => first_of(e.elems.iter_mut()),
        Expr::Struct(e) => first_of(e.fields.iter_mut().map(|f| &mut f.expr)),
        Expr::Match(e) => first_in(&mut e.expr),
        Expr::If(e) => first_in(&mut e.cond),
        Expr::Let(e) => first_in(&mut e.expr),
        Expr::ForLoop(e) => first_in(&mut e.expr),
        Expr::Return(e) => e.expr.as_deref_mut().and_then(first_in),
        // The value is evaluated before the place it is assigned to.
        Expr::Assign(e) => first_in(&mut e.right),
        _ => None,
    }
}

/// The first operand, in evaluation order, that holds an ask, past operands that only read a
/// local or a literal.
fn first_of<'e>(operands: impl Iterator<Item = &'e mut Expr>) -> Option<&'e mut Expr> {
    for operand in operands {
        if matches!(peel(operand), Expr::Path(_) | Expr::Lit(_)) {
            continue;
        }
        return first_in(operand);
    }
    None
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    fn hoisted(stmt: &str) -> Option<String> {
        let stmt: Stmt = syn::parse_str(stmt).expect("a statement");
        let mut next = 0;
        hoist(&stmt, &mut next).map(|(lets, rest)| {
            lets.iter()
                .chain(std::iter::once(&rest))
                .map(|s| s.to_token_stream().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
    }

    #[test]
    fn a_scrutinee_an_if_let_a_question_mark_and_a_receiver_are_hoisted() {
        let out = hoisted("match ask!(k: elicit::<T>(\"m\")) { _ => 1 };").expect("hoisted");
        assert!(out.starts_with("let __mrtr_h0 = ask !"), "{out}");
        assert!(out.ends_with("match __mrtr_h0 { _ => 1 } ;"), "{out}");
        assert!(hoisted("if let Some(r) = ask!(g: gate(&caps)) { return Ok(r); }").is_some());
        assert!(hoisted("let s = ask!(s: summarize(text))?;").is_some());
        assert!(hoisted("let ok = ask!(k: elicit::<T>(\"m\")).is_accept();").is_some());
        assert!(hoisted("return ask!(k: elicit::<T>(\"m\"));").is_some());
        assert!(hoisted("self.last = ask!(k: elicit::<T>(\"m\"));").is_some());
    }

    #[test]
    fn an_ask_after_an_effect_or_in_a_loop_condition_stays() {
        assert!(hoisted("f(g(), ask!(k: elicit::<T>(\"m\")));").is_none());
        assert!(hoisted("let x = ready() && ask!(k: elicit::<T>(\"m\")).is_accept();").is_none());
        assert!(hoisted("while ask!(k: elicit::<T>(\"m\")).is_accept() {}").is_none());
        assert!(hoisted("x += ask!(k: count());").is_none());
    }

    #[test]
    fn forms_the_lowering_splits_as_they_are_are_left_alone() {
        assert!(hoisted("let x = ask!(k: elicit::<T>(\"m\"));").is_none());
        assert!(hoisted("x = ask!(k: elicit::<T>(\"m\"));").is_none());
        assert!(hoisted("ask!(k: elicit::<T>(\"m\"));").is_none());
    }

    #[test]
    fn asks_after_plain_locals_are_hoisted_in_order() {
        let out = hoisted("let pair = (a, ask!(x: one()), ask!(y: two()));").expect("hoisted");
        assert!(
            out.starts_with(
                "let __mrtr_h0 = ask ! (x : one ()) ; let __mrtr_h1 = ask ! (y : two ()) ;"
            ),
            "{out}"
        );
    }
}
