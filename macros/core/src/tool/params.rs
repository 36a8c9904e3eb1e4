//! How the handler's parameters reach each arm.
//!
//! A parameter is never carried in a continuation: every 2026-07-28 round extracts it afresh
//! from the request, whose arguments the bind digest pins. Between the arms of one round (and,
//! on a legacy session, across its asks) a parameter is parked in a slot like a local. A value
//! the body has partly moved (`if let Some(note) = args.note`) cannot be parked whole, though,
//! so a parameter the body *may* partly move is **refilled** instead: the first arm takes the
//! value rmcp extracted, any later arm takes it again from the request — a `Parameters<T>`
//! decoded again from the call's arguments, any other extractor cloned from a copy kept at the
//! start. Both give the value the parameter had before anything moved out of it, which is what
//! the code after the move may still read (rustc has checked that it reads no moved part).
//!
//! The scan is syntactic and errs towards refilling: a wrongly refilled parameter costs one
//! decode per arm, a wrongly parked one fails to compile.

use std::collections::BTreeSet;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Block, Expr, ImplItemFn, Pat, Type};

use super::ask::{AskInvocation, is_ask};
use super::ir::{BindingId, Body};

/// A typed parameter whose bindings are refilled rather than parked.
pub struct Refilled {
    /// Its position among the typed parameters (`__mrtr_p{arg}` in the lowered body).
    pub arg: usize,
    pub pat: Pat,
    pub ty: Type,
    /// `Parameters<T>`: decoded again from the call's arguments; else cloned.
    pub from_arguments: bool,
    pub bindings: Vec<BindingId>,
}

/// The parameters of `method` the body may partly move. A `mut` parameter is always parked:
/// a refill would drop the changes the body made to it.
pub fn refilled(method: &ImplItemFn, body: &Body) -> Vec<Refilled> {
    let moved = part_moved_roots(&method.block);
    super::parse::typed_params(method)
        .zip(&body.param_args)
        .enumerate()
        .filter(|(_, (_, group))| {
            group
                .iter()
                .any(|&b| moved.contains(&body.bindings[b].ident.to_string()))
                && group.iter().all(|&b| !body.bindings[b].mutable)
        })
        .map(|(arg, (typed, group))| Refilled {
            arg,
            pat: (*typed.pat).clone(),
            ty: (*typed.ty).clone(),
            from_arguments: is_parameters(&typed.ty),
            bindings: group.clone(),
        })
        .collect()
}

fn is_parameters(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Parameters"))
}

/// Names `x` of which the block may move a part: `x.field` (or deeper) read by value, or `x`
/// itself destructured by a `let`, `match` or `if let`.
fn part_moved_roots(block: &Block) -> BTreeSet<String> {
    let mut scan = PartMoves::default();
    scan.visit_block(block);
    scan.roots
}

/// Methods that take their receiver by reference: `args.items.len()` moves nothing.
const BORROWING_METHODS: &[&str] = &[
    "as_bytes",
    "as_deref",
    "as_deref_mut",
    "as_mut",
    "as_ref",
    "as_slice",
    "as_str",
    "borrow",
    "bytes",
    "chars",
    "clone",
    "cmp",
    "contains",
    "contains_key",
    "ends_with",
    "eq",
    "first",
    "get",
    "is_empty",
    "is_none",
    "is_some",
    "is_ok",
    "is_err",
    "iter",
    "iter_mut",
    "join",
    "keys",
    "last",
    "len",
    "lines",
    "ne",
    "partial_cmp",
    "split",
    "split_whitespace",
    "starts_with",
    "to_lowercase",
    "to_owned",
    "to_string",
    "to_uppercase",
    "to_vec",
    "trim",
    "values",
];

/// Macros whose arguments are only borrowed.
pub(super) const BORROWING_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "eprint",
    "eprintln",
    "error",
    "format",
    "format_args",
    "info",
    "panic",
    "print",
    "println",
    "trace",
    "warn",
    "write",
    "writeln",
];

#[derive(Default)]
struct PartMoves {
    roots: BTreeSet<String>,
}

impl PartMoves {
    /// A `let`/`match`/`if let` scrutinee: a pattern may take the whole value apart.
    fn destructured(&mut self, expr: &Expr) {
        match strip(expr) {
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    self.roots.insert(ident.to_string());
                }
            }
            other => self.visit_expr(other),
        }
    }

    /// A place that is borrowed, not moved: only what it computes (indices, calls) is scanned.
    fn visit_place(&mut self, expr: &Expr) {
        match strip(expr) {
            Expr::Field(f) => self.visit_place(&f.base),
            Expr::Index(i) => {
                self.visit_place(&i.expr);
                self.visit_expr(&i.index);
            }
            Expr::Path(_) => {}
            other => self.visit_expr(other),
        }
    }

    /// Tokens of a macro that may move its arguments (`vec![args.note]`): any `x.f` counts.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(g) => self.scan_tokens(g.stream()),
                TokenTree::Ident(ident) => {
                    let dot =
                        matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                    let field = matches!(
                        trees.get(i + 2),
                        Some(TokenTree::Ident(_) | TokenTree::Literal(_))
                    );
                    if dot && field {
                        self.roots.insert(ident.to_string());
                    }
                }
                _ => {}
            }
        }
    }
}

/// `x` of a field path `x.a.b` (through parentheses and indexing).
fn field_root(expr: &Expr) -> Option<String> {
    let mut current = strip(expr);
    let mut through_field = false;
    loop {
        match current {
            Expr::Field(f) => {
                through_field = true;
                current = strip(&f.base);
            }
            Expr::Index(i) => current = strip(&i.expr),
            Expr::Path(p) if through_field => return p.path.get_ident().map(|i| i.to_string()),
            _ => return None,
        }
    }
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn is_logical(op: &syn::BinOp) -> bool {
    matches!(op, syn::BinOp::And(_) | syn::BinOp::Or(_))
}

fn is_comparison(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Eq(_)
            | syn::BinOp::Ne(_)
            | syn::BinOp::Lt(_)
            | syn::BinOp::Le(_)
            | syn::BinOp::Gt(_)
            | syn::BinOp::Ge(_)
    )
}

/// Every field path counts as read by value unless its context borrows it.
impl<'ast> Visit<'ast> for PartMoves {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Field(_) | Expr::Index(_) => {
                if let Some(root) = field_root(expr) {
                    self.roots.insert(root);
                }
                self.visit_place(expr);
            }
            Expr::Reference(r) => self.visit_place(&r.expr),
            Expr::MethodCall(call) => {
                if BORROWING_METHODS.contains(&call.method.to_string().as_str()) {
                    self.visit_place(&call.receiver);
                } else {
                    self.visit_expr(&call.receiver);
                }
                call.args.iter().for_each(|a| self.visit_expr(a));
            }
            // Comparisons borrow; `!`, `-`, `&&`, `||` and conditions read `bool`s and numbers,
            // which are `Copy`.
            Expr::Binary(b) if is_comparison(&b.op) || is_logical(&b.op) => {
                self.visit_place(&b.left);
                self.visit_place(&b.right);
            }
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => self.visit_place(&u.expr),
            Expr::If(i) => {
                self.visit_place(&i.cond);
                self.visit_block(&i.then_branch);
                if let Some((_, otherwise)) = &i.else_branch {
                    self.visit_expr(otherwise);
                }
            }
            Expr::While(w) => {
                self.visit_place(&w.cond);
                self.visit_block(&w.body);
            }
            Expr::Match(m) => {
                self.destructured(&m.expr);
                m.arms.iter().for_each(|arm| self.visit_arm(arm));
            }
            Expr::Let(l) => self.destructured(&l.expr),
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            self.destructured(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if is_ask(mac) {
            // The requests are ordinary expressions (`elicit::<T>(format!(.., args.x))`).
            if let Ok(invocation) = mac.parse_body::<AskInvocation>() {
                invocation
                    .entries
                    .iter()
                    .for_each(|e| self.visit_expr(&e.request));
            }
            return;
        }
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if !name
            .as_deref()
            .is_some_and(|n| BORROWING_MACROS.contains(&n))
        {
            self.scan_tokens(mac.tokens.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(body: &str) -> Vec<String> {
        let block: Block = syn::parse_str(body).expect("a block");
        part_moved_roots(&block).into_iter().collect()
    }

    #[test]
    fn a_field_read_by_value_is_a_part_move() {
        assert_eq!(
            roots("{ if let Some(note) = args.note { drop(note) } }"),
            ["args"]
        );
        assert_eq!(roots("{ let run = args.run; }"), ["args"]);
        assert_eq!(roots("{ consume(args.items); }"), ["args"]);
        assert_eq!(roots("{ for x in args.items {} }"), ["args"]);
        assert_eq!(roots("{ let v = vec![args.note]; }"), ["args"]);
        assert_eq!(
            roots("{ let n = args.note.unwrap_or_default(); }"),
            ["args"]
        );
    }

    #[test]
    fn borrowed_fields_are_not_part_moves() {
        assert!(roots("{ let n = args.items.len(); }").is_empty());
        assert!(roots("{ check(&args.service); }").is_empty());
        assert!(roots("{ let s = format!(\"{}\", args.service); }").is_empty());
        assert!(roots("{ if args.count > 3 && args.name == \"x\" {} }").is_empty());
        assert!(roots("{ if args.prod && !args.dry_run { go() } }").is_empty());
        assert!(roots("{ while args.retry { go() } }").is_empty());
        assert!(roots("{ let c = args.items.clone(); }").is_empty());
        assert!(roots("{ consume(args); }").is_empty());
        assert!(
            roots("{ let a = ask!(k: elicit::<T>(format!(\"{}\", args.service))); }").is_empty()
        );
    }

    #[test]
    fn a_destructured_value_may_be_partly_moved() {
        assert_eq!(roots("{ let Args { note, .. } = args; }"), ["args"]);
        assert_eq!(
            roots("{ match args { Args { note, .. } => {} } }"),
            ["args"]
        );
    }

    #[test]
    fn nested_blocks_and_closures_are_scanned() {
        assert_eq!(roots("{ if ok { let run = args.run; } }"), ["args"]);
        assert_eq!(roots("{ let f = move || args.note; }"), ["args"]);
    }
}
