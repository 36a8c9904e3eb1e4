//! Rewrites inside ask-free code that ends up in an arm of the dispatch loop.
//!
//! `return e` becomes `return done::<R>(e)` (a helper's `finish`, see `returns.rs`) so the lowered
//! body can return its own `Flow`; a
//! `break`/`continue` that leaves to an *opened* loop is replaced by a `__mrtr_jump!(n)`
//! placeholder (the loop no longer exists as a Rust loop; codegen turns the placeholder into
//! "park what the target needs, set the program counter, `continue 'dispatch`"). Closures,
//! async blocks and nested items have their own `return`/loops and are left alone.

use proc_macro2::Span;
use quote::quote;
use syn::Expr;
use syn::visit_mut::{self, VisitMut};

use super::ir::{ConstructId, Jump, JumpKind};
use super::returns::Returns;

pub struct Rewriter<'a> {
    pub returns: &'a Returns,
    /// Opened loops around the code, innermost last, with their labels.
    pub opened: &'a [(Option<String>, ConstructId)],
    pub jumps: &'a mut Vec<Jump>,
    /// Jumps recorded by this rewriter (indices into `jumps`).
    pub recorded: Vec<usize>,
    /// Labels of ask-free loops entered while walking; `None` for unlabelled ones.
    verbatim_loops: Vec<Option<String>>,
    /// Names bound inside the statement around the point being visited, innermost last.
    inner: Vec<Vec<String>>,
}

impl<'a> Rewriter<'a> {
    pub fn new(
        returns: &'a Returns,
        opened: &'a [(Option<String>, ConstructId)],
        jumps: &'a mut Vec<Jump>,
    ) -> Self {
        Rewriter {
            returns,
            opened,
            jumps,
            recorded: Vec::new(),
            verbatim_loops: Vec::new(),
            inner: Vec::new(),
        }
    }

    fn target(&self, label: Option<&syn::Lifetime>) -> Option<ConstructId> {
        match label {
            Some(label) => {
                let name = label.ident.to_string();
                if self
                    .verbatim_loops
                    .iter()
                    .any(|l| l.as_deref() == Some(&name))
                {
                    return None;
                }
                self.opened
                    .iter()
                    .rev()
                    .find(|(l, _)| l.as_deref() == Some(&name))
                    .map(|(_, c)| *c)
            }
            None if !self.verbatim_loops.is_empty() => None,
            None => self.opened.last().map(|(_, c)| *c),
        }
    }

    fn placeholder(&mut self, target: ConstructId, kind: JumpKind) -> Expr {
        let jump = Jump {
            target,
            kind,
            inner_names: self.inner.iter().flatten().cloned().collect(),
        };
        let id = self.jumps.len();
        self.jumps.push(jump);
        self.recorded.push(id);
        let lit = proc_macro2::Literal::usize_unsuffixed(id);
        syn::parse_quote_spanned!(Span::call_site()=> __mrtr_jump!(#lit))
    }

    fn scoped(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        self.inner.push(names);
        f(self);
        self.inner.pop();
    }

    fn in_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.verbatim_loops
            .push(label.map(|l| l.name.ident.to_string()));
        f(self);
        self.verbatim_loops.pop();
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.visit_expr_mut(value);
                }
                let value = ret.expr.take().map_or_else(|| quote!(()), |v| quote!(#v));
                let token = ret.return_token;
                let done = self.returns.done(value);
                *expr = syn::parse_quote!(#token #done);
            }
            Expr::Break(brk) => {
                if let Some(value) = &mut brk.expr {
                    self.visit_expr_mut(value);
                }
                if let Some(target) = self.target(brk.label.as_ref()) {
                    let value = brk.expr.take().map(|v| *v);
                    *expr = self.placeholder(target, JumpKind::Break(value));
                }
            }
            Expr::Continue(cont) => {
                if let Some(target) = self.target(cont.label.as_ref()) {
                    *expr = self.placeholder(target, JumpKind::Continue);
                }
            }
            Expr::Loop(l) => {
                let label = l.label.clone();
                self.in_loop(label.as_ref(), |this| this.visit_block_mut(&mut l.body));
            }
            Expr::While(w) => {
                self.visit_expr_mut(&mut w.cond);
                let label = w.label.clone();
                self.in_loop(label.as_ref(), |this| this.visit_block_mut(&mut w.body));
            }
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let label = f.label.clone();
                let names = super::patterns::bound_names(&f.pat);
                self.in_loop(label.as_ref(), |this| {
                    this.scoped(names, |this| this.visit_block_mut(&mut f.body))
                });
            }
            Expr::If(e) if matches!(*e.cond, Expr::Let(_)) => {
                self.visit_expr_mut(&mut e.cond);
                let names = super::uses::let_bindings(&e.cond);
                self.scoped(names, |this| this.visit_block_mut(&mut e.then_branch));
                if let Some((_, otherwise)) = &mut e.else_branch {
                    self.visit_expr_mut(otherwise);
                }
            }
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.scoped(Vec::new(), |this| {
            for stmt in &mut block.stmts {
                this.visit_stmt_mut(stmt);
                if let syn::Stmt::Local(local) = stmt {
                    let names = super::patterns::bound_names(&local.pat);
                    this.inner.last_mut().expect("a block scope").extend(names);
                }
            }
        });
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let names = super::patterns::bound_names(&arm.pat);
        self.scoped(names, |this| visit_mut::visit_arm_mut(this, arm));
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
