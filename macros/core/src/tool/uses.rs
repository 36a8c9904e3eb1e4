//! Which tracked bindings a piece of ask-free syntax reads.
//!
//! A use is a single-segment path that resolves to a tracked binding, any identifier inside
//! another macro's tokens, or an inline format capture (`"{name}"`) in a string literal there.
//! Bindings the syntax declares itself (inner `let`s, closure parameters, arm patterns) shadow
//! outer ones. When unsure, this counts a use: carrying too much costs bytes, carrying too
//! little can silently read a parameter of the same name.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Expr, Pat};

use super::ir::{BindingId, Live};
use super::patterns::{bound_idents, bound_names};

pub struct Uses<'r> {
    resolve: &'r dyn Fn(&str) -> Option<BindingId>,
    inner: Vec<Vec<String>>,
    pub found: Live,
}

impl<'r> Uses<'r> {
    pub fn new(resolve: &'r dyn Fn(&str) -> Option<BindingId>) -> Self {
        Uses {
            resolve,
            inner: Vec::new(),
            found: Live::new(),
        }
    }

    fn note(&mut self, name: &str) {
        if self
            .inner
            .iter()
            .any(|scope| scope.iter().any(|n| n == name))
        {
            return;
        }
        if let Some(b) = (self.resolve)(name) {
            self.found.insert(b);
        }
    }

    fn scan_tokens(&mut self, tokens: &TokenStream) {
        for tree in tokens.clone() {
            match tree {
                TokenTree::Ident(ident) => self.note(&ident.to_string()),
                TokenTree::Group(group) => self.scan_tokens(&group.stream()),
                TokenTree::Literal(lit) => {
                    for name in format_captures(&lit.to_string()) {
                        self.note(&name);
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }

    fn with_scope(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        self.inner.push(names);
        f(self);
        self.inner.pop();
    }
}

/// Identifiers captured by `{name}` / `{name:?}` in a string literal's source text.
pub fn format_captures(literal: &str) -> Vec<String> {
    if !literal.ends_with('"') {
        return Vec::new();
    }
    let mut names = Vec::new();
    let mut chars = literal.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '{' {
            continue;
        }
        if chars.peek() == Some(&'{') {
            chars.next();
            continue;
        }
        let mut name = String::new();
        while let Some(&next) = chars.peek() {
            if next.is_alphanumeric() || next == '_' {
                name.push(next);
                chars.next();
            } else {
                break;
            }
        }
        let starts_like_ident = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        if starts_like_ident && matches!(chars.peek(), Some('}') | Some(':')) {
            names.push(name);
        }
    }
    names
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr_path(&mut self, node: &'ast syn::ExprPath) {
        if node.qself.is_none()
            && node.path.segments.len() == 1
            && node.path.leading_colon.is_none()
        {
            self.note(&node.path.segments[0].ident.to_string());
        }
        visit::visit_expr_path(self, node);
    }

    fn visit_macro(&mut self, node: &'ast syn::Macro) {
        self.scan_tokens(&node.tokens);
    }

    /// `x = e` reads `e`, not `x`: a local only ever overwritten is dead (the arm still
    /// declares it, from the statement's `writes`).
    fn visit_expr_assign(&mut self, node: &'ast syn::ExprAssign) {
        let plain_target = matches!(&*node.left, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some());
        if !plain_target {
            self.visit_expr(&node.left);
        }
        self.visit_expr(&node.right);
    }

    fn visit_block(&mut self, node: &'ast syn::Block) {
        self.with_scope(Vec::new(), |this| {
            for stmt in &node.stmts {
                match stmt {
                    syn::Stmt::Local(local) => {
                        if let Some(init) = &local.init {
                            this.visit_expr(&init.expr);
                            if let Some((_, diverge)) = &init.diverge {
                                this.visit_expr(diverge);
                            }
                        }
                        let names = bound_names(&local.pat);
                        this.inner.last_mut().expect("scope pushed").extend(names);
                    }
                    other => this.visit_stmt(other),
                }
            }
        });
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        let names = node
            .inputs
            .iter()
            .flat_map(bound_idents)
            .map(|(i, _)| i.to_string())
            .collect();
        self.with_scope(names, |this| this.visit_expr(&node.body));
    }

    fn visit_arm(&mut self, node: &'ast syn::Arm) {
        let names = bound_names(&node.pat);
        self.with_scope(names, |this| {
            if let Pat::Guard(guard) = &node.pat {
                this.visit_expr(&guard.guard);
            }
            this.visit_expr(&node.body);
        });
    }

    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        let names = bound_names(&node.pat);
        self.with_scope(names, |this| this.visit_block(&node.body));
    }

    fn visit_expr_if(&mut self, node: &'ast syn::ExprIf) {
        // `if let` bindings scope over the then-branch only.
        self.visit_expr(&node.cond);
        let names = let_bindings(&node.cond);
        self.with_scope(names, |this| this.visit_block(&node.then_branch));
        if let Some((_, otherwise)) = &node.else_branch {
            self.visit_expr(otherwise);
        }
    }

    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        self.visit_expr(&node.cond);
        let names = let_bindings(&node.cond);
        self.with_scope(names, |this| this.visit_block(&node.body));
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Names bound by the `let` parts of a condition (`if let`, let chains).
pub fn let_bindings(cond: &Expr) -> Vec<String> {
    match cond {
        Expr::Let(l) => bound_names(&l.pat),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut names = let_bindings(&b.left);
            names.extend(let_bindings(&b.right));
            names
        }
        Expr::Paren(p) => let_bindings(&p.expr),
        _ => Vec::new(),
    }
}
