//! From the handler's syntax to the IR: frames, opened constructs, ask sites, bindings resolved
//! through a scope stack, and the uses/defs/kills liveness needs. Misplaced `ask!`s are
//! reported here, each with its own fix.

use std::collections::{HashMap, HashSet};

use quote::{ToTokens, format_ident};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident, Pat, Stmt, Type};

use super::*;
use crate::errors::Errors;
use crate::tool::ask::{AskInvocation, is_ask, tokens_mention_ask};
use crate::tool::misplaced::reject_misplaced;
use crate::tool::patterns::{annotation, bound_idents, let_bound_idents};
use crate::tool::returns::Returns;
use crate::tool::rewrite::Rewriter;
use crate::tool::syntax::Syntax;
use crate::tool::uses::Uses;

pub(super) struct Builder<'e, 'a> {
    pub(super) body: Body,
    errors: &'e mut Errors,
    /// One scope per frame being built, innermost last.
    scopes: Vec<Vec<BindingId>>,
    loops: Vec<(Option<String>, ConstructId)>,
    returns: &'a Returns,
    wire_counts: HashMap<String, usize>,
    keys_seen: HashSet<String>,
    tails: usize,
    /// Asks hoisted into `let`s so far (`__mrtr_hN`).
    hoisted: usize,
}

/// Builds the IR of a handler body. `params` are the parameter patterns, in order.
pub fn build(params: &[&Pat], block: &Block, returns: &Returns, errors: &mut Errors) -> Body {
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
        returns,
        wire_counts: HashMap::new(),
        keys_seen: HashSet::new(),
        tails: 0,
        hoisted: 0,
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

impl Builder<'_, '_> {
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
            // The owned copy of a helper's borrowed parameter travels under the parameter's name.
            BindingKind::Param | BindingKind::Local => {
                let name = ident.to_string();
                match name.strip_prefix("__mrtr_own_") {
                    Some(param) => param.to_owned(),
                    None => name,
                }
            }
        };
        let count = self.wire_counts.entry(name.clone()).or_insert(0);
        *count += 1;
        let wire = if *count == 1 {
            name
        } else {
            format!("{name}@{count}")
        };
        let view_of = init
            .as_ref()
            .and_then(view_owner)
            .and_then(|owner| self.resolve(&owner));
        self.body.bindings.push(Binding {
            ident,
            mutable,
            by_ref,
            ty,
            kind,
            wire,
            init,
            uninit,
            view_of,
        });
        self.body.bindings.len() - 1
    }

    /// The bindings a pattern introduces; `irrefutable` for a plain `let` or a `for`.
    fn pattern_bindings(
        &mut self,
        pat: &Pat,
        init: Option<&Expr>,
        uninit: bool,
        irrefutable: bool,
    ) -> Vec<BindingId> {
        let ty = annotation(pat);
        let idents = if irrefutable {
            let_bound_idents(pat)
        } else {
            bound_idents(pat)
        };
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

    pub(super) fn resolve(&self, name: &str) -> Option<BindingId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .copied()
            .find(|&b| self.body.bindings[b].ident == name)
    }

    /// The tracked bindings `item` reads.
    pub(super) fn uses(&self, item: &impl Syntax) -> Live {
        let resolve = |name: &str| self.resolve(name);
        let mut uses = Uses::new(&resolve);
        item.accept(&mut uses);
        // A view is derived from its owner wherever it is used: the owner is used there too.
        let owners: Vec<BindingId> = uses
            .found
            .iter()
            .filter_map(|&b| self.body.bindings[b].view_of)
            .collect();
        uses.found.extend(owners);
        uses.found
    }

    /// Rewrites `return`s and jumps to opened loops; returns the jumps recorded.
    fn rewrite(&mut self, f: impl FnOnce(&mut Rewriter<'_>)) -> Vec<usize> {
        let mut rewriter = Rewriter::new(self.returns, &self.loops, &mut self.body.jumps);
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
            hides: Live::new(),
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

        let stmts = self.hoist_first_asks(stmts);
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

        let mut split = false;
        for node in self.body.frames[id].stmts.iter_mut().rev() {
            node.split_after = split;
            split |= !matches!(node.kind, NodeKind::Verbatim(_));
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

    /// Statements whose first evaluated expression is an `ask!`, with that ask moved into a
    /// `let` before them (see `hoist.rs`).
    fn hoist_first_asks(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            let hoisted = tokens_mention_ask(&stmt.to_token_stream())
                .and_then(|_| super::hoist::hoist(&stmt, &mut self.hoisted));
            match hoisted {
                Some((lets, rest)) => {
                    out.extend(lets);
                    out.push(rest);
                }
                None => out.push(stmt),
            }
        }
        out
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
                let defs = self.pattern_bindings(
                    &local.pat,
                    init.as_ref(),
                    local.init.is_none(),
                    local.init.as_ref().is_none_or(|i| i.diverge.is_none()),
                );
                (uses, defs)
            }
            Stmt::Expr(expr, _) => (self.exposed(expr, &[], &mut kills), Vec::new()),
            _ => (self.uses(&stmt), Vec::new()),
        };
        let diverges = stmt_diverges(&stmt);
        let writes = self.writes(|w| w.visit_stmt(&stmt));
        let jumps = self.rewrite(|r| r.visit_stmt_mut(&mut stmt));
        Node {
            uses,
            kills,
            writes,
            jumps,
            diverges,
            ..Node::new(NodeKind::Verbatim(stmt), defs)
        }
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
                        Some(self.ask_node(&m.mac, Some(&local.pat), diverge))
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
            Stmt::Macro(m) if is_ask(&m.mac) => Some(self.ask_node(&m.mac, None, None)),
            Stmt::Expr(Expr::Macro(m), _) if is_ask(&m.mac) => {
                Some(self.ask_node(&m.mac, None, None))
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
                        let mut node = self.ask_node(&m.mac, None, None);
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

    fn ask_node(&mut self, mac: &syn::Macro, pat: Option<&Pat>, diverge: Option<Expr>) -> Node {
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
        let several = invocation.entries.len() > 1;
        for mut entry in invocation.entries {
            let helper = match entry.request {
                Expr::Await(awaited) => {
                    entry.request = *awaited.base;
                    if several {
                        self.errors.at(&entry.key, "an `ask!` that enters a helper (`.await`) has that one key: give the helper its own `ask!`, and the other keys theirs");
                    }
                    helper_entry(&entry.request, self.errors)
                }
                _ => None,
            };
            let name = entry.key.to_string();
            if self.keys_seen.contains(&name) {
                self.errors.at(&entry.key, format!("the ask key `{name}` is already used by another `ask!` in this handler; each ask needs its own key, as it names the answer in `inputResponses`: rename this one"));
            } else {
                self.keys_seen.insert(name);
            }
            reject_misplaced(&entry.request, self.errors);
            uses.extend(self.uses(&entry.request));
            self.rewrite(|r| r.visit_expr_mut(&mut entry.request));
            let capability = capability_of(&entry.request);
            keys.push(SiteKey {
                key: entry.key,
                request: entry.request,
                capability: if helper.is_some() { None } else { capability },
                helper,
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
                self.pattern_bindings(pat, None, false, diverge.is_none())
            }
            None => Vec::new(),
        };
        let kind = NodeKind::Ask {
            site,
            pat: pat.cloned(),
            diverge,
            assign: None,
        };
        Node {
            uses,
            jumps,
            diverge_uses,
            ..Node::new(kind, defs)
        }
    }

    /// An `if`, `match`, block or loop that contains an `ask!`: each branch or body becomes a
    /// frame of its own, the construct a node its frame enters.
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
        let at = Some((frame, index));
        let (kind, label) = match expr {
            Expr::If(top) => (self.open_if(top, construct, at), None),
            Expr::Match(m) => (self.open_match(m, construct, at), None),
            Expr::Block(b) => (self.open_block(b, construct, at), None),
            Expr::Loop(l) => self.open_loop(l, construct, at),
            Expr::While(w) => self.open_while(w, construct, at),
            Expr::ForLoop(f) => self.open_for(f, construct, at),
            _ => unreachable!("opens() admits only these"),
        };
        self.body.constructs[construct].kind = kind;
        self.body.constructs[construct].label = label;

        let (diverge, diverge_uses, jumps) = self.diverge(diverge);
        let defs = match pat {
            Some(pat) => self.pattern_bindings(pat, None, false, diverge.is_none()),
            None => Vec::new(),
        };
        let kind = NodeKind::Opened {
            construct,
            pat: pat.cloned(),
            diverge,
        };
        Node {
            jumps,
            diverge_uses,
            ..Node::new(kind, defs)
        }
    }

    /// `if` / `else if` / `else`: a frame per branch.
    fn open_if(
        &mut self,
        top: &syn::ExprIf,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> ConstructKind {
        let (here, exit) = (at, FrameExit::Join(construct));
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
                    otherwise = Some(self.build_frame(&b.block.stmts, here, Vec::new(), exit));
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
        ConstructKind::If {
            branches,
            otherwise,
            cond_uses,
        }
    }

    /// `match`: a frame per arm, its pattern's bindings in scope from the start.
    fn open_match(
        &mut self,
        m: &syn::ExprMatch,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> ConstructKind {
        let (here, exit) = (at, FrameExit::Join(construct));
        let mut scrutinee = (*m.expr).clone();
        reject_misplaced(&scrutinee, self.errors);
        let mut match_uses = self.uses(&scrutinee);
        self.rewrite(|r| r.visit_expr_mut(&mut scrutinee));
        let mut arms = Vec::new();
        for arm in &m.arms {
            let mut arm_pat = arm.pat.clone();
            reject_misplaced(&arm_pat, self.errors);
            let start = self.pattern_bindings(&arm_pat, None, false, false);
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
                other => self.build_frame(&[Stmt::Expr(other.clone(), None)], here, start, exit),
            };
            arms.push((arm_pat, body));
        }
        ConstructKind::Match {
            scrutinee,
            arms,
            uses: match_uses,
        }
    }

    /// A plain block; a labelled one is refused (the lowering splits loops, not blocks).
    fn open_block(
        &mut self,
        b: &syn::ExprBlock,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> ConstructKind {
        let (here, exit) = (at, FrameExit::Join(construct));
        if let Some(label) = &b.label {
            self.errors.at(label, "a labelled block containing `ask!` is not supported; use a `loop { .. }` and `break` out of it instead");
        }
        ConstructKind::Block(self.build_frame(&b.block.stmts, here, Vec::new(), exit))
    }

    /// `loop`: one body frame, re-entered at its head with the iteration counter.
    fn open_loop(
        &mut self,
        l: &syn::ExprLoop,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> (ConstructKind, Option<syn::Lifetime>) {
        let here = at;
        let label = l.label.as_ref().map(|l| l.name.clone());
        let counter = self.loop_counter(construct);
        let body = self.loop_body(label.as_ref(), construct, &l.body, here, vec![counter]);
        (ConstructKind::Loop { body, counter }, label)
    }

    /// `while` / `while let`: the condition runs at the head.
    fn open_while(
        &mut self,
        w: &syn::ExprWhile,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> (ConstructKind, Option<syn::Lifetime>) {
        let here = at;
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

    /// `for`: the remaining items are collected when the loop starts and carried.
    fn open_for(
        &mut self,
        f: &syn::ExprForLoop,
        construct: ConstructId,
        at: Option<(FrameId, usize)>,
    ) -> (ConstructKind, Option<syn::Lifetime>) {
        let here = at;
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
        start.extend(self.pattern_bindings(&f.pat, None, false, true));
        let body = self.loop_body(label.as_ref(), construct, &f.body, here, start);
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
            .flat_map(|p| self.pattern_bindings(p, None, false, false))
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

/// The client capability an ask's request names, from its builder as written in the `ask!`
/// (the request can also come from elsewhere, a local or a function: then it is not listed, and
/// the runtime's gate still checks it when it is asked).
/// `::std::borrow::Borrow::borrow(&__mrtr_ownN)`, the view a helper's borrowed parameter is
/// bound to: the owner's name.
fn view_owner(init: &Expr) -> Option<String> {
    let Expr::Call(call) = init else { return None };
    let Expr::Path(func) = &*call.func else {
        return None;
    };
    let is_borrow = func
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .eq(["std", "borrow", "Borrow", "borrow"]);
    let [Expr::Reference(arg)] = call.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let Expr::Path(owner) = &*arg.expr else {
        return None;
    };
    let owner = owner.path.get_ident()?.to_string();
    (is_borrow && owner.starts_with("__mrtr_own")).then_some(owner)
}

/// The entry of `ask!(site: call.await)`: `call` names an `#[mrtr_helper]` by path
/// (`gate(..)`, `Self::gate(..)`) or as a method on `self` (`self.gate(..)`), whose receiver is
/// evaluated again at every entry, so it must be `self` or a field of it.
fn helper_entry(call: &Expr, errors: &mut Errors) -> Option<HelperEntry> {
    let run = |name: &Ident| format_ident!("__mrtr_run_{}", name);
    match call {
        Expr::Call(c) => {
            let Expr::Path(path) = &*c.func else {
                errors.at(&c.func, "`ask!(site: helper(..).await)` calls an `#[mrtr_helper]` by its name: `gate(..)`, `Self::gate(..)` or `self.gate(..)`");
                return None;
            };
            let mut path = path.clone();
            let last = path.path.segments.last_mut()?;
            let name = last.ident.to_string();
            last.ident = run(&last.ident);
            Some(HelperEntry {
                callee: path.into_token_stream(),
                name,
                method: false,
            })
        }
        Expr::MethodCall(m) => {
            if !rooted_at_self(&m.receiver) {
                errors.at(&m.receiver, "a helper method is entered again on every retry, on the instance the retry reaches: call it on `self` or a field of `self` (`self.gate(..)`, `self.approvals.ask(..)`), not on a local");
                return None;
            }
            let receiver = &m.receiver;
            let method = run(&m.method);
            let turbofish = &m.turbofish;
            Some(HelperEntry {
                callee: quote::quote!(#receiver.#method #turbofish),
                name: m.method.to_string(),
                method: true,
            })
        }
        other => {
            errors.at(other, "`.await` inside `ask!` enters an `#[mrtr_helper]`: write `ask!(site: helper(..).await)` with a call of the helper, or drop the `.await` to ask a client request");
            None
        }
    }
}

/// `self`, `self.a.b`, `&self.a`: a place the retry can evaluate again.
fn rooted_at_self(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.is_ident("self"),
        Expr::Field(f) => rooted_at_self(&f.base),
        Expr::Reference(r) => rooted_at_self(&r.expr),
        Expr::Paren(p) => rooted_at_self(&p.expr),
        _ => false,
    }
}

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
                    "elicit" | "elicit_with_schema" => Some("elicitation.form"),
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
