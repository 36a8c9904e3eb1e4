//! From the handler's syntax to the IR: frames, opened constructs, ask sites, bindings resolved
//! through a scope stack, and the uses/defs/kills liveness needs. Misplaced `ask!`s are
//! reported here, each with its own fix.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::{ToTokens, format_ident};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident, Pat, Stmt, Type};

use super::*;
use crate::errors::Errors;
use crate::tool::ask::{AskInvocation, is_ask, tokens_mention_ask};
use crate::tool::misplaced::reject_misplaced;
use crate::tool::patterns::{annotation, bound_idents};
use crate::tool::rewrite::Rewriter;
use crate::tool::syntax::Syntax;
use crate::tool::uses::Uses;

pub struct Builder<'e> {
    pub body: Body,
    errors: &'e mut Errors,
    /// One scope per frame being built, innermost last.
    scopes: Vec<Vec<BindingId>>,
    loops: Vec<(Option<String>, ConstructId)>,
    ret: Type,
    wire_counts: HashMap<String, usize>,
    keys_seen: HashMap<String, Span>,
    tails: usize,
}

/// Builds the IR of a handler body. `params` are the parameter patterns, in order.
pub fn build(params: &[&Pat], block: &Block, ret: Type, errors: &mut Errors) -> Body {
    let mut builder = Builder {
        body: Body {
            bindings: Vec::new(),
            frames: Vec::new(),
            sites: Vec::new(),
            constructs: Vec::new(),
            jumps: Vec::new(),
            items: Vec::new(),
            params: Vec::new(),
            param_args: Vec::new(),
        },
        errors,
        scopes: Vec::new(),
        loops: Vec::new(),
        ret,
        wire_counts: HashMap::new(),
        keys_seen: HashMap::new(),
        tails: 0,
    };
    let mut param_bindings = Vec::new();
    for pat in params {
        let mut group = Vec::new();
        for (ident, pb) in bound_idents(pat) {
            let id = builder.new_binding(
                ident,
                pb.mutable,
                pb.by_ref,
                None,
                BindingKind::Param,
                None,
                false,
            );
            param_bindings.push(id);
            group.push(id);
        }
        builder.body.param_args.push(group);
    }
    builder.body.params = param_bindings.clone();
    builder.scopes.push(param_bindings);
    builder.build_frame(&block.stmts, None, Vec::new(), FrameExit::Return);
    builder.body
}

impl Builder<'_> {
    #[allow(clippy::too_many_arguments)]
    fn new_binding(
        &mut self,
        ident: Ident,
        mutable: bool,
        by_ref: bool,
        ty: Option<Type>,
        kind: BindingKind,
        init: Option<Expr>,
        uninit: bool,
    ) -> BindingId {
        let name = match kind {
            BindingKind::Rest(c) => format!("#rest{c}"),
            BindingKind::Counter(c) => format!("#i{c}"),
            BindingKind::Param | BindingKind::Local => ident.to_string(),
        };
        let count = self.wire_counts.entry(name.clone()).or_insert(0);
        *count += 1;
        let wire = if *count == 1 {
            name
        } else {
            format!("{name}@{count}")
        };
        self.body.bindings.push(Binding {
            ident,
            mutable,
            by_ref,
            ty,
            kind,
            wire,
            init,
            uninit,
        });
        self.body.bindings.len() - 1
    }

    fn pattern_bindings(&mut self, pat: &Pat, init: Option<&Expr>, uninit: bool) -> Vec<BindingId> {
        let ty = annotation(pat);
        let idents = bound_idents(pat);
        let single = idents.len() == 1;
        idents
            .into_iter()
            .map(|(ident, pb)| {
                let init = if single { init.cloned() } else { None };
                let ty = if single { ty.clone() } else { None };
                self.new_binding(
                    ident,
                    pb.mutable,
                    pb.by_ref,
                    ty,
                    BindingKind::Local,
                    init,
                    uninit,
                )
            })
            .collect()
    }

    fn resolve(&self, name: &str) -> Option<BindingId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .copied()
            .find(|&b| self.body.bindings[b].ident == name)
    }

    /// The tracked bindings `item` reads.
    fn uses(&self, item: &impl Syntax) -> Live {
        let resolve = |name: &str| self.resolve(name);
        let mut uses = Uses::new(&resolve);
        item.accept(&mut uses);
        uses.found
    }

    /// Rewrites `return`s and jumps to opened loops; returns the jumps recorded.
    fn rewrite(&mut self, f: impl FnOnce(&mut Rewriter<'_>)) -> Vec<usize> {
        let mut rewriter = Rewriter::new(&self.ret, &self.loops, &mut self.body.jumps);
        f(&mut rewriter);
        rewriter.recorded
    }

    fn build_frame(
        &mut self,
        stmts: &[Stmt],
        parent: Option<(FrameId, usize)>,
        start: Vec<BindingId>,
        exit: FrameExit,
    ) -> FrameId {
        let id = self.body.frames.len();
        self.body.frames.push(Frame {
            parent,
            start: start.clone(),
            exit,
            stmts: Vec::new(),
            tail: None,
            tail_uses: Live::new(),
            tail_kills: Live::new(),
            tail_writes: Live::new(),
            tail_jumps: Vec::new(),
            tail_diverges: false,
            live_in: Live::new(),
        });
        self.scopes.push(start);

        let mut stmts: Vec<Stmt> = stmts.to_vec();
        let mut tail = match stmts.last() {
            Some(Stmt::Expr(_, None)) => match stmts.pop() {
                Some(Stmt::Expr(e, None)) => Some(e),
                _ => None,
            },
            Some(Stmt::Macro(m)) if m.semi_token.is_none() => match stmts.pop() {
                Some(Stmt::Macro(m)) => Some(Expr::Macro(syn::ExprMacro {
                    attrs: m.attrs,
                    mac: m.mac,
                })),
                _ => None,
            },
            _ => None,
        };
        // An ask-bearing tail becomes `let __mrtr_tailN = <tail>; __mrtr_tailN`.
        if let Some(expr) = &tail
            && tokens_mention_ask(&expr.to_token_stream()).is_some()
        {
            let name = format_ident!("__mrtr_tail{}", self.tails);
            self.tails += 1;
            stmts.push(syn::parse_quote!(let #name = #expr;));
            tail = Some(syn::parse_quote!(#name));
        }

        for stmt in &stmts {
            let index = self.body.frames[id].stmts.len();
            if let Some(node) = self.build_node(stmt, id, index) {
                self.scopes
                    .last_mut()
                    .expect("frame scope")
                    .extend(node.defs.iter().copied());
                self.body.frames[id].stmts.push(node);
            }
        }

        if let Some(mut expr) = tail {
            reject_misplaced(&expr, self.errors);
            let mut kills = Live::new();
            let uses = self.exposed(&expr, &[], &mut kills);
            let writes = self.writes(|w| w.visit_expr(&expr));
            let diverges = expr_diverges(&expr);
            let jumps = self.rewrite(|r| r.visit_expr_mut(&mut expr));
            let frame = &mut self.body.frames[id];
            frame.tail_diverges = diverges;
            frame.tail = Some(expr);
            frame.tail_uses = uses;
            frame.tail_kills = kills;
            frame.tail_writes = writes;
            frame.tail_jumps = jumps;
        }
        self.scopes.pop();
        id
    }

    fn verbatim(&mut self, stmt: &Stmt) -> Node {
        let mut stmt = stmt.clone();
        let mut kills = Live::new();
        let (uses, defs) = match &stmt {
            Stmt::Local(local) => {
                let uses = match &local.init {
                    Some(init) => {
                        let mut uses = self.exposed(&init.expr, &[], &mut kills);
                        if let Some((_, diverge)) = &init.diverge {
                            uses.extend(self.uses(diverge));
                        }
                        uses
                    }
                    None => Live::new(),
                };
                let init = local.init.as_ref().map(|i| (*i.expr).clone());
                let defs = self.pattern_bindings(&local.pat, init.as_ref(), local.init.is_none());
                (uses, defs)
            }
            Stmt::Expr(expr, _) => (self.exposed(expr, &[], &mut kills), Vec::new()),
            _ => (self.uses(&stmt), Vec::new()),
        };
        let diverges = stmt_diverges(&stmt);
        let writes = self.writes(|w| w.visit_stmt(&stmt));
        let jumps = self.rewrite(|r| r.visit_stmt_mut(&mut stmt));
        Node {
            kind: NodeKind::Verbatim(stmt),
            defs,
            uses,
            kills,
            writes,
            jumps,
            live_out: Live::new(),
            diverge_uses: Live::new(),
            diverges,
        }
    }

    fn writes(&self, visit: impl FnOnce(&mut Writes<'_>)) -> Live {
        let resolve = |name: &str| self.resolve(name);
        let mut writes = Writes {
            resolve: &resolve,
            found: Live::new(),
        };
        visit(&mut writes);
        writes.found
    }

    /// The reads of `expr` that see a value from before it, and (into `killed`) the bindings it
    /// assigns on every path that completes normally: `v = f()?;`, also inside a block or
    /// both branches of an `if`/every arm of a `match`. A binding overwritten before it is read
    /// is dead before the statement, so no step carries it there. `hidden` are names that
    /// inner `let`s or patterns have bound by this point (an assignment to one is not a kill).
    fn exposed(&self, expr: &Expr, hidden: &[String], killed: &mut Live) -> Live {
        // A read counts unless a kill came first, or an inner binding of that name hides it.
        let seen = |reads: Live, killed: &Live, hidden: &[String]| -> Live {
            reads
                .into_iter()
                .filter(|b| !killed.contains(b))
                .filter(|&b| !hidden.contains(&self.body.bindings[b].ident.to_string()))
                .collect()
        };
        let plain = |expr: &Expr, killed: &Live| seen(self.uses(expr), killed, hidden);
        match expr {
            Expr::Paren(p) => self.exposed(&p.expr, hidden, killed),
            Expr::Assign(assign) => match &*assign.left {
                Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                    let uses = self.exposed(&assign.right, hidden, killed);
                    let name = p.path.segments[0].ident.to_string();
                    if !hidden.contains(&name)
                        && let Some(b) = self.resolve(&name)
                    {
                        killed.insert(b);
                    }
                    uses
                }
                _ => plain(expr, killed),
            },
            Expr::Block(b) if b.label.is_none() => {
                let mut hidden = hidden.to_vec();
                let mut uses = Live::new();
                for stmt in &b.block.stmts {
                    match stmt {
                        Stmt::Expr(e, _) => uses.extend(self.exposed(e, &hidden, killed)),
                        Stmt::Local(local) => {
                            if let Some(init) = &local.init {
                                uses.extend(self.exposed(&init.expr, &hidden, killed));
                                if let Some((_, diverge)) = &init.diverge {
                                    uses.extend(seen(self.uses(diverge), killed, &hidden));
                                }
                            }
                            hidden.extend(
                                bound_idents(&local.pat)
                                    .into_iter()
                                    .map(|(i, _)| i.to_string()),
                            );
                        }
                        other => uses.extend(seen(self.uses(other), killed, &hidden)),
                    }
                }
                uses
            }
            Expr::If(i) => {
                let mut uses = self.exposed(&i.cond, hidden, killed);
                let mut then_hidden = hidden.to_vec();
                then_hidden.extend(crate::tool::uses::let_bindings(&i.cond));
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
            // A loop body may run no time at all, so it kills nothing; but a read inside it
            // that follows an assignment of the same iteration never sees the old value.
            Expr::While(w) => {
                let mut uses = self.exposed(&w.cond, hidden, killed);
                let mut body_hidden = hidden.to_vec();
                body_hidden.extend(crate::tool::uses::let_bindings(&w.cond));
                uses.extend(self.exposed_block(&w.body, &body_hidden, &mut killed.clone()));
                uses
            }
            Expr::Loop(l) => self.exposed_block(&l.body, hidden, &mut killed.clone()),
            Expr::ForLoop(f) => {
                let mut uses = self.exposed(&f.expr, hidden, killed);
                let mut body_hidden = hidden.to_vec();
                body_hidden.extend(bound_idents(&f.pat).into_iter().map(|(i, _)| i.to_string()));
                uses.extend(self.exposed_block(&f.body, &body_hidden, &mut killed.clone()));
                uses
            }
            Expr::Match(m) => {
                let mut uses = self.exposed(&m.expr, hidden, killed);
                let mut common: Option<Live> = None;
                for arm in &m.arms {
                    let mut arm_hidden = hidden.to_vec();
                    arm_hidden.extend(
                        bound_idents(&arm.pat)
                            .into_iter()
                            .map(|(i, _)| i.to_string()),
                    );
                    if let Pat::Guard(guard) = &arm.pat {
                        uses.extend(seen(self.uses(&guard.guard), killed, &arm_hidden));
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
            _ => plain(expr, killed),
        }
    }

    fn exposed_block(&self, block: &Block, hidden: &[String], killed: &mut Live) -> Live {
        let block = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: block.clone(),
        });
        self.exposed(&block, hidden, killed)
    }

    fn build_node(&mut self, stmt: &Stmt, frame: FrameId, index: usize) -> Option<Node> {
        if let Stmt::Item(item) = stmt {
            if tokens_mention_ask(&item.to_token_stream()).is_some() {
                reject_misplaced(stmt, self.errors);
            }
            self.body.items.push(stmt.clone());
            return None;
        }
        if tokens_mention_ask(&stmt.to_token_stream()).is_none() {
            return Some(self.verbatim(stmt));
        }
        match stmt {
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                let diverge = init.diverge.as_ref().map(|(_, d)| (**d).clone());
                // `let P = (if ..) else { .. };` needs the parentheses: rustc forbids a `let .. else`
                // whose value ends in `}`.
                match peel_parens(&init.expr) {
                    Expr::Macro(m) if is_ask(&m.mac) => {
                        Some(self.ask_node(&m.mac, Some(&local.pat), diverge, frame, index))
                    }
                    expr if opens(expr) => {
                        Some(self.opened_node(expr, Some(&local.pat), diverge, frame, index))
                    }
                    _ => {
                        reject_misplaced(stmt, self.errors);
                        Some(self.verbatim(stmt))
                    }
                }
            }
            Stmt::Macro(m) if is_ask(&m.mac) => {
                Some(self.ask_node(&m.mac, None, None, frame, index))
            }
            Stmt::Expr(Expr::Macro(m), _) if is_ask(&m.mac) => {
                Some(self.ask_node(&m.mac, None, None, frame, index))
            }
            Stmt::Expr(Expr::Assign(assign), Some(_)) if matches!(&*assign.right, Expr::Macro(m) if is_ask(&m.mac)) =>
            {
                let target = match &*assign.left {
                    Expr::Path(p) => p
                        .path
                        .get_ident()
                        .and_then(|i| self.resolve(&i.to_string())),
                    _ => None,
                };
                match (target, &*assign.right) {
                    (Some(b), Expr::Macro(m)) => {
                        let mut node = self.ask_node(&m.mac, None, None, frame, index);
                        node.kills.insert(b);
                        if let NodeKind::Ask { assign, .. } = &mut node.kind {
                            *assign = Some(b);
                        }
                        Some(node)
                    }
                    _ => {
                        reject_misplaced(stmt, self.errors);
                        Some(self.verbatim(stmt))
                    }
                }
            }
            Stmt::Expr(expr, _) if opens(expr) => {
                Some(self.opened_node(expr, None, None, frame, index))
            }
            _ => {
                reject_misplaced(stmt, self.errors);
                Some(self.verbatim(stmt))
            }
        }
    }

    /// Uses, jumps and the rewritten block of a `let .. else { D }` on an opened initializer.
    fn diverge(&mut self, diverge: Option<Expr>) -> (Option<Block>, Live, Vec<usize>) {
        let Some(expr) = diverge else {
            return (None, Live::new(), Vec::new());
        };
        let mut block = match expr {
            Expr::Block(b) => b.block,
            other => syn::parse_quote!({ #other }),
        };
        reject_misplaced(&block, self.errors);
        let uses = self.uses(&block);
        let jumps = self.rewrite(|r| r.visit_block_mut(&mut block));
        (Some(block), uses, jumps)
    }

    fn ask_node(
        &mut self,
        mac: &syn::Macro,
        pat: Option<&Pat>,
        diverge: Option<Expr>,
        _frame: FrameId,
        _index: usize,
    ) -> Node {
        let invocation: AskInvocation = match mac.parse_body() {
            Ok(inv) => inv,
            Err(e) => {
                self.errors.push(e);
                AskInvocation {
                    entries: Vec::new(),
                }
            }
        };
        let mut uses = Live::new();
        let mut keys = Vec::new();
        for mut entry in invocation.entries {
            let name = entry.key.to_string();
            if let Some(first) = self.keys_seen.get(&name) {
                let _ = first;
                self.errors.at(&entry.key, format!("the ask key `{name}` is already used by another `ask!` in this handler; each ask needs its own key, as it names the answer in `inputResponses`: rename this one"));
            } else {
                self.keys_seen.insert(name, entry.key.span());
            }
            reject_misplaced(&entry.request, self.errors);
            uses.extend(self.uses(&entry.request));
            self.rewrite(|r| r.visit_expr_mut(&mut entry.request));
            let capability = capability_of(&entry.request);
            keys.push(SiteKey {
                key: entry.key,
                request: entry.request,
                capability,
            });
        }
        let step = match keys.first() {
            Some(k) => format!("After{}", pascal(&k.key.to_string())),
            None => "AfterInvalid".to_owned(),
        };
        let step = unique_step(step, &self.body.sites);
        let site = self.body.sites.len();
        self.body.sites.push(Site {
            step,
            path: mac.path.clone(),
            keys,
            loops: self.loops.iter().map(|(_, c)| *c).collect(),
            live: Live::new(),
        });

        let (diverge, diverge_uses, jumps) = self.diverge(diverge);
        let defs = match pat {
            Some(pat) => {
                reject_misplaced(pat, self.errors);
                self.pattern_bindings(pat, None, false)
            }
            None => Vec::new(),
        };
        Node {
            kind: NodeKind::Ask {
                site,
                pat: pat.cloned(),
                diverge,
                assign: None,
            },
            defs,
            uses,
            kills: Live::new(),
            writes: Live::new(),
            jumps,
            live_out: Live::new(),
            diverge_uses,
            diverges: false,
        }
    }

    fn opened_node(
        &mut self,
        expr: &Expr,
        pat: Option<&Pat>,
        diverge: Option<Expr>,
        frame: FrameId,
        index: usize,
    ) -> Node {
        let construct = self.body.constructs.len();
        self.body.constructs.push(Construct {
            kind: ConstructKind::Block(usize::MAX),
            label: None,
            has_value: pat.is_some(),
            live_join: Live::new(),
            live_head: Live::new(),
        });
        let here = Some((frame, index));
        let exit = FrameExit::Join(construct);
        let mut uses = Live::new();
        let (kind, label) = match expr {
            Expr::If(top) => {
                let mut branches = Vec::new();
                let mut otherwise = None;
                let mut cond_uses = Live::new();
                let mut current = top;
                loop {
                    let mut cond = (*current.cond).clone();
                    reject_misplaced(&cond, self.errors);
                    cond_uses.extend(self.uses(&cond));
                    self.rewrite(|r| r.visit_expr_mut(&mut cond));
                    let start = self.cond_bindings(&cond);
                    let body = self.build_frame(&current.then_branch.stmts, here, start, exit);
                    branches.push((cond, body));
                    match current.else_branch.as_ref().map(|(_, e)| &**e) {
                        Some(Expr::If(next)) => current = next,
                        Some(Expr::Block(b)) => {
                            otherwise =
                                Some(self.build_frame(&b.block.stmts, here, Vec::new(), exit));
                            break;
                        }
                        Some(other) => {
                            otherwise = Some(self.build_frame(
                                &[Stmt::Expr(other.clone(), None)],
                                here,
                                Vec::new(),
                                exit,
                            ));
                            break;
                        }
                        None => break,
                    }
                }
                uses.extend(cond_uses.iter().copied());
                (
                    ConstructKind::If {
                        branches,
                        otherwise,
                        cond_uses,
                    },
                    None,
                )
            }
            Expr::Match(m) => {
                let mut scrutinee = (*m.expr).clone();
                reject_misplaced(&scrutinee, self.errors);
                let mut match_uses = self.uses(&scrutinee);
                self.rewrite(|r| r.visit_expr_mut(&mut scrutinee));
                let mut arms = Vec::new();
                for arm in &m.arms {
                    let mut arm_pat = arm.pat.clone();
                    reject_misplaced(&arm_pat, self.errors);
                    let start = self.pattern_bindings(&arm_pat, None, false);
                    if let Pat::Guard(guard) = &mut arm_pat {
                        self.scopes.push(start.clone());
                        let guard_uses = self.uses(&guard.guard);
                        self.scopes.pop();
                        match_uses.extend(guard_uses.into_iter().filter(|b| !start.contains(b)));
                        self.rewrite(|r| r.visit_expr_mut(&mut guard.guard));
                    }
                    let body = match &*arm.body {
                        Expr::Block(b) if b.label.is_none() => {
                            self.build_frame(&b.block.stmts, here, start, exit)
                        }
                        other => {
                            self.build_frame(&[Stmt::Expr(other.clone(), None)], here, start, exit)
                        }
                    };
                    arms.push((arm_pat, body));
                }
                uses.extend(match_uses.iter().copied());
                (
                    ConstructKind::Match {
                        scrutinee,
                        arms,
                        uses: match_uses,
                    },
                    None,
                )
            }
            Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.errors.at(label, "a labelled block containing `ask!` is not supported; use a `loop { .. }` and `break` out of it instead");
                }
                (
                    ConstructKind::Block(self.build_frame(&b.block.stmts, here, Vec::new(), exit)),
                    None,
                )
            }
            Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.clone());
                let counter = self.loop_counter(construct);
                let body = self.loop_body(label.as_ref(), construct, &l.body, here, vec![counter]);
                (ConstructKind::Loop { body, counter }, label)
            }
            Expr::While(w) => {
                let label = w.label.as_ref().map(|l| l.name.clone());
                let mut cond = (*w.cond).clone();
                reject_misplaced(&cond, self.errors);
                let cond_uses = self.uses(&cond);
                let counter = self.loop_counter(construct);
                self.loops
                    .push((label.as_ref().map(|l| l.ident.to_string()), construct));
                self.rewrite(|r| r.visit_expr_mut(&mut cond));
                self.loops.pop();
                let mut start = vec![counter];
                start.extend(self.cond_bindings(&cond));
                let body = self.loop_body(label.as_ref(), construct, &w.body, here, start);
                (
                    ConstructKind::While {
                        cond,
                        body,
                        counter,
                        cond_uses,
                    },
                    label,
                )
            }
            Expr::ForLoop(f) => {
                let label = f.label.as_ref().map(|l| l.name.clone());
                let mut iter = (*f.expr).clone();
                reject_misplaced(&iter, self.errors);
                check_owned_iteration(&iter, self.errors);
                let iter_uses = self.uses(&iter);
                self.rewrite(|r| r.visit_expr_mut(&mut iter));
                let counter = self.loop_counter(construct);
                // Spanned at the iterable: a non-serializable item type is reported there.
                let rest = self.new_binding(
                    format_ident!("__mrtr_rest{}", construct, span = f.expr.span()),
                    true,
                    false,
                    None,
                    BindingKind::Rest(construct),
                    None,
                    false,
                );
                reject_misplaced(&*f.pat, self.errors);
                let mut start = vec![rest, counter];
                start.extend(self.pattern_bindings(&f.pat, None, false));
                let body = self.loop_body(label.as_ref(), construct, &f.body, here, start);
                uses.extend(iter_uses.iter().copied());
                (
                    ConstructKind::For {
                        pat: (*f.pat).clone(),
                        iter,
                        body,
                        rest,
                        counter,
                        iter_uses,
                    },
                    label,
                )
            }
            _ => unreachable!("opens() admits only these"),
        };
        let _ = uses;
        self.body.constructs[construct].kind = kind;
        self.body.constructs[construct].label = label;

        let (diverge, diverge_uses, jumps) = self.diverge(diverge);
        let defs = match pat {
            Some(pat) => {
                let init = None;
                self.pattern_bindings(pat, init, false)
            }
            None => Vec::new(),
        };
        Node {
            kind: NodeKind::Opened {
                construct,
                pat: pat.cloned(),
                diverge,
            },
            defs,
            uses: Live::new(),
            kills: Live::new(),
            writes: Live::new(),
            jumps,
            live_out: Live::new(),
            diverge_uses,
            diverges: false,
        }
    }

    fn loop_counter(&mut self, construct: ConstructId) -> BindingId {
        self.new_binding(
            format_ident!("__mrtr_i{}", construct),
            true,
            false,
            None,
            BindingKind::Counter(construct),
            None,
            false,
        )
    }

    fn loop_body(
        &mut self,
        label: Option<&syn::Lifetime>,
        construct: ConstructId,
        body: &Block,
        here: Option<(FrameId, usize)>,
        start: Vec<BindingId>,
    ) -> FrameId {
        self.loops
            .push((label.map(|l| l.ident.to_string()), construct));
        let frame = self.build_frame(&body.stmts, here, start, FrameExit::Latch(construct));
        self.loops.pop();
        frame
    }

    fn cond_bindings(&mut self, cond: &Expr) -> Vec<BindingId> {
        let mut pats = Vec::new();
        collect_let_pats(cond, &mut pats);
        pats.iter()
            .flat_map(|p| self.pattern_bindings(p, None, false))
            .collect()
    }
}

fn collect_let_pats(cond: &Expr, out: &mut Vec<Pat>) {
    match cond {
        Expr::Let(l) => out.push((*l.pat).clone()),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            collect_let_pats(&b.left, out);
            collect_let_pats(&b.right, out);
        }
        Expr::Paren(p) => collect_let_pats(&p.expr, out),
        _ => {}
    }
}

/// Whether a statement always leaves its block.
fn stmt_diverges(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Expr(expr, _) => expr_diverges(expr),
        Stmt::Macro(m) => macro_diverges(&m.mac),
        _ => false,
    }
}

fn expr_diverges(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => macro_diverges(&m.mac),
        _ => false,
    }
}

fn macro_diverges(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

fn peel_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => peel_parens(&p.expr),
        other => other,
    }
}

/// Constructs the lowering takes apart when they contain an `ask!`.
fn opens(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
    )
}

/// A `for` whose body asks carries its remaining items, so they must be owned values.
fn check_owned_iteration(iter: &Expr, errors: &mut Errors) {
    let borrowed = match iter {
        Expr::Reference(_) => true,
        Expr::MethodCall(call) => matches!(
            call.method.to_string().as_str(),
            "iter"
                | "iter_mut"
                | "chars"
                | "bytes"
                | "lines"
                | "keys"
                | "values"
                | "values_mut"
                | "windows"
                | "chunks"
                | "split_whitespace"
        ),
        _ => false,
    };
    if borrowed {
        errors.at(iter, "the remaining items of this loop are carried across the `ask!` in its body, so they must be owned values; iterate over owned items: `v.clone()`, `v.into_iter()` or `v.iter().cloned()`");
    }
    if let Expr::Range(range) = iter
        && range.end.is_none()
    {
        errors.at(iter, "the items of this loop are collected to be carried across the `ask!` in its body; an unbounded range cannot be collected: give it an end");
    }
}

/// The client capability an ask's request needs, from its builder's name.
fn capability_of(request: &Expr) -> Option<&'static str> {
    let mut expr = request;
    loop {
        match expr {
            Expr::Block(b) => match b.block.stmts.last() {
                Some(Stmt::Expr(e, None)) => expr = e,
                _ => return None,
            },
            Expr::Paren(p) => expr = &p.expr,
            Expr::Call(call) => {
                let Expr::Path(path) = &*call.func else {
                    return None;
                };
                let name = path.path.segments.last()?.ident.to_string();
                return match name.as_str() {
                    "elicit" => Some("elicitation.form"),
                    "elicit_url" => Some("elicitation.url"),
                    "sample" => Some("sampling"),
                    "roots" => Some("roots"),
                    _ => None,
                };
            }
            _ => return None,
        }
    }
}

fn unique_step(step: String, sites: &[Site]) -> String {
    if !sites.iter().any(|s| s.step == step) {
        return step;
    }
    (2..)
        .map(|n| format!("{step}_{n}"))
        .find(|candidate| !sites.iter().any(|s| &s.step == candidate))
        .expect("unbounded")
}

/// Every binding a statement assigns (`x = ..`, `x += ..`), wherever in it. Over-approximate on
/// purpose (a shadowing inner `x` counts too): it only decides what an arm declares.
struct Writes<'r> {
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
        if matches!(
            node.op,
            syn::BinOp::AddAssign(_)
                | syn::BinOp::SubAssign(_)
                | syn::BinOp::MulAssign(_)
                | syn::BinOp::DivAssign(_)
                | syn::BinOp::RemAssign(_)
                | syn::BinOp::BitXorAssign(_)
                | syn::BinOp::BitAndAssign(_)
                | syn::BinOp::BitOrAssign(_)
                | syn::BinOp::ShlAssign(_)
                | syn::BinOp::ShrAssign(_)
        ) {
            self.target(&node.left);
        }
        syn::visit::visit_expr_binary(self, node);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
