//! What a statement reads of the values from before it, and what it assigns on every path that
//! completes normally: a binding overwritten before it is read is dead before the statement,
//! so no step carries it there.

use syn::visit::Visit;
use syn::{Block, Expr, Pat, Stmt};

use super::build::Builder;
use super::*;
use crate::tool::patterns::bound_names;
use crate::tool::uses::let_bindings;

impl Builder<'_, '_> {
    /// The reads of `expr` that see a value from before it, and (into `killed`) the bindings it
    /// assigns on every path that completes normally: `v = f()?;`, also inside a block or
    /// both branches of an `if`/every arm of a `match`. `hidden` are names that inner `let`s or
    /// patterns have bound by this point (an assignment to one is not a kill).
    pub(super) fn exposed(&self, expr: &Expr, hidden: &[String], killed: &mut Live) -> Live {
        match expr {
            Expr::Paren(p) => self.exposed(&p.expr, hidden, killed),
            Expr::Assign(assign) if local_name(&assign.left).is_some() => {
                self.exposed_assign(assign, hidden, killed)
            }
            Expr::Block(b) if b.label.is_none() => {
                self.exposed_stmts(&b.block.stmts, hidden, killed)
            }
            Expr::If(i) => self.exposed_if(i, hidden, killed),
            Expr::Match(m) => self.exposed_match(m, hidden, killed),
            // A loop body may run no time at all, so it kills nothing; but a read inside it
            // that follows an assignment of the same iteration never sees the old value.
            Expr::While(w) => {
                let mut uses = self.exposed(&w.cond, hidden, killed);
                let body_hidden = with_names(hidden, let_bindings(&w.cond));
                uses.extend(self.exposed_block(&w.body, &body_hidden, &mut killed.clone()));
                uses
            }
            Expr::Loop(l) => self.exposed_block(&l.body, hidden, &mut killed.clone()),
            Expr::ForLoop(f) => {
                let mut uses = self.exposed(&f.expr, hidden, killed);
                let body_hidden = with_names(hidden, bound_names(&f.pat));
                uses.extend(self.exposed_block(&f.body, &body_hidden, &mut killed.clone()));
                uses
            }
            _ => self.seen(self.uses(expr), killed, hidden),
        }
    }

    /// A read counts unless a kill came first, or an inner binding of that name hides it.
    fn seen(&self, reads: Live, killed: &Live, hidden: &[String]) -> Live {
        reads
            .into_iter()
            .filter(|b| !killed.contains(b))
            .filter(|&b| !hidden.contains(&self.body.bindings[b].ident.to_string()))
            .collect()
    }

    /// `x = value`: the value's reads, then `x` is killed.
    fn exposed_assign(
        &self,
        assign: &syn::ExprAssign,
        hidden: &[String],
        killed: &mut Live,
    ) -> Live {
        let uses = self.exposed(&assign.right, hidden, killed);
        if let Some(name) = local_name(&assign.left)
            && !hidden.contains(&name)
            && let Some(b) = self.resolve(&name)
        {
            killed.insert(b);
        }
        uses
    }

    /// The statements of a block, in order, each `let` hiding its names from what follows.
    fn exposed_stmts(&self, stmts: &[Stmt], hidden: &[String], killed: &mut Live) -> Live {
        let mut hidden = hidden.to_vec();
        let mut uses = Live::new();
        for stmt in stmts {
            match stmt {
                Stmt::Expr(e, _) => uses.extend(self.exposed(e, &hidden, killed)),
                Stmt::Local(local) => {
                    if let Some(init) = &local.init {
                        uses.extend(self.exposed(&init.expr, &hidden, killed));
                        if let Some((_, diverge)) = &init.diverge {
                            uses.extend(self.seen(self.uses(diverge), killed, &hidden));
                        }
                    }
                    hidden.extend(bound_names(&local.pat));
                }
                other => uses.extend(self.seen(self.uses(other), killed, &hidden)),
            }
        }
        uses
    }

    /// Both branches kill what each of them kills; without an `else`, nothing.
    fn exposed_if(&self, i: &syn::ExprIf, hidden: &[String], killed: &mut Live) -> Live {
        let mut uses = self.exposed(&i.cond, hidden, killed);
        let then_hidden = with_names(hidden, let_bindings(&i.cond));
        let mut then_killed = killed.clone();
        uses.extend(self.exposed_block(&i.then_branch, &then_hidden, &mut then_killed));
        if let Some((_, otherwise)) = &i.else_branch {
            let mut else_killed = killed.clone();
            uses.extend(self.exposed(otherwise, hidden, &mut else_killed));
            killed.extend(
                then_killed
                    .intersection(&else_killed)
                    .copied()
                    .collect::<Vec<_>>(),
            );
        }
        uses
    }

    /// Every arm kills what all of them kill.
    fn exposed_match(&self, m: &syn::ExprMatch, hidden: &[String], killed: &mut Live) -> Live {
        let mut uses = self.exposed(&m.expr, hidden, killed);
        let mut common: Option<Live> = None;
        for arm in &m.arms {
            let arm_hidden = with_names(hidden, bound_names(&arm.pat));
            if let Pat::Guard(guard) = &arm.pat {
                uses.extend(self.seen(self.uses(&guard.guard), killed, &arm_hidden));
            }
            let mut arm_killed = killed.clone();
            uses.extend(self.exposed(&arm.body, &arm_hidden, &mut arm_killed));
            common = Some(match common {
                None => arm_killed,
                Some(c) => c.intersection(&arm_killed).copied().collect(),
            });
        }
        killed.extend(common.unwrap_or_default());
        uses
    }

    pub(super) fn exposed_block(
        &self,
        block: &Block,
        hidden: &[String],
        killed: &mut Live,
    ) -> Live {
        self.exposed_stmts(&block.stmts, hidden, killed)
    }

    /// Every binding a piece of syntax assigns, wherever in it (see [`Node::writes`]).
    pub(super) fn writes(&self, visit: impl FnOnce(&mut Writes<'_>)) -> Live {
        let resolve = |name: &str| self.resolve(name);
        let mut writes = Writes {
            resolve: &resolve,
            found: Live::new(),
        };
        visit(&mut writes);
        writes.found
    }
}

/// `x` of an assignment to a plain local `x = ..` (not a field, index or path).
fn local_name(left: &Expr) -> Option<String> {
    match left {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

fn with_names(hidden: &[String], more: Vec<String>) -> Vec<String> {
    let mut out = hidden.to_vec();
    out.extend(more);
    out
}

/// Every binding a statement assigns (`x = ..`, `x += ..`), wherever in it. Over-approximate on
/// purpose (a shadowing inner `x` counts too): it only decides what an arm declares.
pub(super) struct Writes<'r> {
    resolve: &'r dyn Fn(&str) -> Option<BindingId>,
    found: Live,
}

impl Writes<'_> {
    fn target(&mut self, left: &Expr) {
        if let Expr::Path(p) = left
            && p.qself.is_none()
            && let Some(ident) = p.path.get_ident()
            && let Some(b) = (self.resolve)(&ident.to_string())
        {
            self.found.insert(b);
        }
    }
}

impl<'ast> Visit<'ast> for Writes<'_> {
    fn visit_expr_assign(&mut self, node: &'ast syn::ExprAssign) {
        self.target(&node.left);
        syn::visit::visit_expr_assign(self, node);
    }

    fn visit_expr_binary(&mut self, node: &'ast syn::ExprBinary) {
        if crate::tool::syntax::is_compound_assignment(&node.op) {
            self.target(&node.left);
        }
        syn::visit::visit_expr_binary(self, node);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
