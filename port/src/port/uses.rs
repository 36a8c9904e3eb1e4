//! Where a legacy request's result, bound with `let`, is used afterwards. The binding becomes
//! the `ask!`'s `Answer` only if every use is a pattern test the port can map.

use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Pat, Stmt};

use super::arms::{self, MappedMatch, Unmappable};
use super::peer::RequestKind;
use crate::source::{Source, range};

pub enum Use<'a> {
    Match(&'a syn::ExprMatch),
    /// A single pattern tested against the binding: `if let`, `let .. else`, `matches!`.
    Pattern(Box<Pat>),
}

struct Finder<'a> {
    name: &'a str,
    uses: Vec<Use<'a>>,
    other: Option<usize>,
}

fn is_name(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Path(p) if p.path.is_ident(name))
}

fn binds(pat: &Pat, name: &str) -> bool {
    match pat {
        Pat::Ident(i) => i.ident == name || i.subpat.as_ref().is_some_and(|(_, p)| binds(p, name)),
        Pat::Type(t) => binds(&t.pat, name),
        Pat::Tuple(t) => t.elems.iter().any(|p| binds(p, name)),
        Pat::TupleStruct(t) => t.elems.iter().any(|p| binds(p, name)),
        Pat::Struct(s) => s.fields.iter().any(|f| binds(&f.pat, name)),
        Pat::Or(o) => o.cases.iter().any(|p| binds(p, name)),
        Pat::Paren(p) => binds(&p.pat, name),
        Pat::Reference(r) => binds(&r.pat, name),
        Pat::Slice(s) => s.elems.iter().any(|p| binds(p, name)),
        _ => false,
    }
}

impl<'a> Finder<'a> {
    fn stmts(&mut self, stmts: &'a [Stmt]) {
        for stmt in stmts {
            self.visit_stmt(stmt);
            if let Stmt::Local(l) = stmt
                && binds(&l.pat, self.name)
            {
                return;
            }
        }
    }
}

/// `matches!(x, PAT)` read as its parts; `PAT` keeps the spans of the original tokens.
fn matches_args(mac: &syn::Macro) -> Option<(Expr, Pat)> {
    mac.parse_body_with(|input: syn::parse::ParseStream| {
        let expr: Expr = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let pat = Pat::parse_multi_with_leading_vert(input)?;
        if !input.is_empty() {
            return Err(input.error("guard"));
        }
        Ok((expr, pat))
    })
    .ok()
}

impl<'a> Visit<'a> for Finder<'a> {
    fn visit_block(&mut self, block: &'a syn::Block) {
        self.stmts(&block.stmts);
    }

    fn visit_local(&mut self, local: &'a syn::Local) {
        if let Some(init) = &local.init
            && is_name(&init.expr, self.name)
            && init.diverge.is_some()
        {
            self.uses.push(Use::Pattern(Box::new(local.pat.clone())));
            if let Some((_, d)) = &init.diverge {
                self.visit_expr(d);
            }
            return;
        }
        visit::visit_local(self, local);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Match(m) if is_name(&m.expr, self.name) => {
                self.uses.push(Use::Match(m));
                // An arm that binds the same name shadows it in its body.
                for arm in m.arms.iter().filter(|a| !binds(&a.pat, self.name)) {
                    self.visit_expr(&arm.body);
                }
            }
            Expr::If(i) => {
                if let Expr::Let(l) = &*i.cond
                    && is_name(&l.expr, self.name)
                {
                    self.uses.push(Use::Pattern(l.pat.clone()));
                    if !binds(&l.pat, self.name) {
                        self.visit_block(&i.then_branch);
                    }
                    if let Some((_, e)) = &i.else_branch {
                        self.visit_expr(e);
                    }
                    return;
                }
                visit::visit_expr(self, expr);
            }
            Expr::Macro(m) => {
                if m.mac.path.is_ident("matches")
                    && let Some((subject, pat)) = matches_args(&m.mac)
                    && is_name(&subject, self.name)
                {
                    self.uses.push(Use::Pattern(Box::new(pat)));
                    return;
                }
                if mentions_tokens(m.mac.tokens.clone(), self.name) {
                    self.other.get_or_insert(range(m).start);
                }
            }
            Expr::Path(p) if p.path.is_ident(self.name) => {
                self.other.get_or_insert(range(p).start);
            }
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_stmt_macro(&mut self, m: &'a syn::StmtMacro) {
        if mentions_tokens(m.mac.tokens.clone(), self.name) {
            self.other.get_or_insert(range(m).start);
        }
    }
}

fn mentions_tokens(stream: proc_macro2::TokenStream, name: &str) -> bool {
    stream.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions_tokens(g.stream(), name),
        // Captured by a format string: `"{answer:?}"`.
        proc_macro2::TokenTree::Literal(l) => {
            let text = l.to_string();
            text.contains(&format!("{{{name}}}")) || text.contains(&format!("{{{name}:"))
        }
        _ => false,
    })
}

/// Every use of `name` in the statements after its `let`, or the offset of one that is not a
/// pattern test.
pub fn find<'a>(name: &'a str, rest: &'a [Stmt]) -> Result<Vec<Use<'a>>, String> {
    let mut finder = Finder {
        name,
        uses: Vec::new(),
        other: None,
    };
    finder.stmts(rest);
    match finder.other {
        Some(_) => Err(format!("`{name}` is used other than in a pattern test")),
        None => Ok(finder.uses),
    }
}

/// The pattern edits that turn every use into a test of the `Answer`.
pub fn rewrite(
    uses: &[Use],
    kind: &RequestKind,
    src: &Source,
    arm_edits: impl Fn(&syn::ExprMatch, &MappedMatch) -> Vec<(Range<usize>, String)>,
) -> Result<Vec<(Range<usize>, String)>, Unmappable> {
    let mut edits = Vec::new();
    for u in uses {
        match u {
            Use::Match(m) => {
                let mapped = arms::map_match(&m.arms, kind, src)?;
                edits.extend(arm_edits(m, &mapped));
            }
            Use::Pattern(pat) => edits.push((range(&**pat), arms::map_single(pat, kind, src)?)),
        }
    }
    Ok(edits)
}
