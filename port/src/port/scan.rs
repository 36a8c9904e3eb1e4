//! One function body, read once: every client request and how it is consumed, every capability
//! probe, every call to another function of the file, every use of the peer.

use std::collections::BTreeSet;
use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Local, Pat, Stmt};

use super::keys::Keys;
use super::peer::{PeerNames, Request, RequestKind, unsupported_request};
use super::probe;
use crate::source::{Source, range};

/// A request rewritten into an `ask!`, with the edits that do it.
pub struct Site {
    pub key: String,
    pub edits: Vec<(Range<usize>, String)>,
    /// The request's own bytes: peer uses inside it are gone once it is rewritten.
    pub covers: Range<usize>,
    /// Kept the legacy `Result` shape around the answer (the value is used in ways the port
    /// does not rewrite); said in the report.
    pub adapted: bool,
}

/// A site left for the user, as `file:line:col: what; suggested change`.
pub struct Manual {
    pub offset: usize,
    pub what: String,
    pub suggestion: String,
}

/// One argument of a call: the callee parameter it fills, its bytes, its comma, and the peer
/// binding it passes, if it passes one.
pub struct Argument {
    pub param: usize,
    pub range: Range<usize>,
    pub comma: Option<Range<usize>>,
    pub peer: Option<String>,
}

/// A call to a function of the same file; it becomes a helper site if the callee asks.
pub struct Call {
    pub callee: String,
    pub args: Vec<Argument>,
    /// Where the argument list ends, for appending `&caps`.
    pub args_end: usize,
    pub has_args: bool,
    pub position: Result<Range<usize>, &'static str>,
    pub key_hint: Option<String>,
    pub offset: usize,
}

#[derive(Default)]
pub struct Scan {
    pub sites: Vec<Site>,
    pub manual: Vec<Manual>,
    pub probes: Vec<probe::Probe>,
    pub calls: Vec<Call>,
    pub peer_uses: Vec<(String, usize)>,
    pub elicited: Vec<(String, usize)>,
    pub notes: Vec<Manual>,
    pub aliases: Vec<Alias>,
    /// A capability check was written in front of an ask: the function needs `caps`.
    pub needs_caps: bool,
}

/// `let peer = context.peer.clone();`: another name for the peer, dropped with its statement
/// once nothing else uses it.
pub struct Alias {
    pub name: String,
    pub statement: Range<usize>,
}

pub struct Scanner<'a> {
    pub(super) src: &'a Source,
    pub(super) names: PeerNames,
    pub(super) functions: &'a BTreeSet<String>,
    pub(super) caps: String,
    pub keys: Keys,
    pub out: Scan,
    /// Closures and `async` blocks around the current expression: a request there cannot be
    /// an `ask!` (the state machine cannot suspend inside them).
    pub(super) nested: Vec<&'static str>,
    /// Request calls already rewritten by an enclosing form.
    pub(super) handled: BTreeSet<(usize, usize)>,
    /// Awaits that are the first thing their statement evaluates.
    pub(super) leading: BTreeSet<(usize, usize)>,
    /// The `let` binding name of the statement being read, for keys.
    pub(super) binding: Option<String>,
    /// Where the statement being read starts: a capability check goes in front of it.
    pub(super) statement_start: usize,
}

pub(super) fn key_of(r: &Range<usize>) -> (usize, usize) {
    (r.start, r.end)
}

impl<'a> Scanner<'a> {
    pub fn new(
        src: &'a Source,
        names: PeerNames,
        functions: &'a BTreeSet<String>,
        caps: String,
    ) -> Self {
        Scanner {
            src,
            names,
            functions,
            caps,
            keys: Keys::default(),
            out: Scan::default(),
            nested: Vec::new(),
            handled: BTreeSet::new(),
            leading: BTreeSet::new(),
            binding: None,
            statement_start: 0,
        }
    }

    pub(super) fn record_site(&mut self, request: &Request, site: Site) {
        if let RequestKind::Elicit { ty } = &request.kind {
            self.out
                .elicited
                .push((ty.clone(), range(request.call).start));
        }
        if request.kind == RequestKind::ElicitUrl {
            self.out.notes.push(Manual {
                offset: range(request.call).start,
                what: "the URL elicitation's id argument is dropped: on 2026-07-28 the answer comes back with the retry, keyed by the ask".into(),
                suggestion: "if the server used that id elsewhere (a completion notification), remove that use".into(),
            });
        }
        if request.kind == RequestKind::Roots {
            self.out.notes.push(Manual {
                offset: range(request.call).start,
                what: "`roots/list` ported as an `ask!`; if the roots choose a working directory or bound file access, 2026-07-28 advises against asking for them".into(),
                suggestion: "take the boundary from configuration with `mrtr::allowed_roots::AllowedRoots` (see examples/servers/repo_tools.rs)".into(),
            });
        }
        self.handled.insert(key_of(&range(request.call)));
        self.out.sites.push(site);
    }

    pub(super) fn manual(&mut self, offset: usize, what: String, suggestion: impl Into<String>) {
        self.out.manual.push(Manual {
            offset,
            what,
            suggestion: suggestion.into(),
        });
    }

    /// An awaited request: `REQ.await`.
    pub(super) fn statement(&mut self, stmt: &'a Stmt, rest: &'a [Stmt]) {
        self.statement_start = range(stmt).start;
        self.statement_inner(stmt, rest);
        self.binding = None;
    }

    pub(super) fn statement_inner(&mut self, stmt: &'a Stmt, rest: &'a [Stmt]) {
        match stmt {
            Stmt::Local(local) => {
                if self.alias(local) || self.local_form(local, rest) {
                    return;
                }
                if let Some(init) = &local.init {
                    if self.join_form(local, &init.expr, rest) == Some(true) {
                        return;
                    }
                    let hint = match strip_type(&local.pat) {
                        Pat::Ident(i) => Some(i.ident.to_string()),
                        _ => None,
                    };
                    if self.nested.is_empty() && self.lead(&init.expr, hint) {
                        if let Some((_, d)) = &init.diverge {
                            self.visit_expr(d);
                        }
                        return;
                    }
                }
                visit::visit_local(self, local);
            }
            Stmt::Expr(expr, _) => {
                if self.nested.is_empty() && self.lead(expr, None) {
                    return;
                }
                self.visit_expr(expr);
            }
            _ => visit::visit_stmt(self, stmt),
        }
    }

    pub(super) fn alias(&mut self, local: &'a Local) -> bool {
        let (Pat::Ident(binding), Some(init)) = (strip_type(&local.pat), &local.init) else {
            return false;
        };
        if init.diverge.is_some() || self.names.root_of(&init.expr).is_none() {
            return false;
        }
        let name = binding.ident.to_string();
        self.visit_expr(&init.expr);
        self.names.peers.insert(name.clone());
        self.out.aliases.push(Alias {
            name,
            statement: range(local),
        });
        true
    }

    /// Where a call to a helper sits: `Ok` with its `.await` when the `ask!` can wrap it.
    pub(super) fn call_position(
        &self,
        call_range: &Range<usize>,
        parent_await: Option<Range<usize>>,
    ) -> Result<Range<usize>, &'static str> {
        if let Some(kind) = self.nested.last() {
            return Err(kind);
        }
        match parent_await {
            Some(a) if self.leading.contains(&key_of(&a)) => Ok(a),
            Some(_) => Err("not the first thing its statement evaluates"),
            None => {
                let _ = call_range;
                Err("not awaited where it is called")
            }
        }
    }
}

impl<'a> Visit<'a> for Scanner<'a> {
    fn visit_block(&mut self, block: &'a syn::Block) {
        for (index, stmt) in block.stmts.iter().enumerate() {
            self.statement(stmt, &block.stmts[index + 1..]);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Some(p) = probe::recognise(expr, &self.names, &self.caps) {
            self.out.probes.push(p);
            return;
        }
        match expr {
            Expr::Closure(c) => {
                self.nested.push("inside a closure");
                self.visit_expr(&c.body);
                self.nested.pop();
            }
            Expr::Async(a) => {
                self.nested.push("inside an `async` block");
                self.visit_block(&a.block);
                self.nested.pop();
            }
            Expr::Await(a) => {
                if let Some(call) = self.call_of(&a.base) {
                    let position = self.call_position(&range(&*a.base), Some(range(expr)));
                    self.record_call(call, position);
                    self.visit_call_args(&a.base);
                    return;
                }
                visit::visit_expr_await(self, a);
            }
            Expr::Macro(m) => self.visit_macro(&m.mac),
            _ => {
                if let Some(call) = self.call_of(expr) {
                    let position = self.call_position(&range(expr), None);
                    self.record_call(call, position);
                    self.visit_call_args(expr);
                    return;
                }
                visit::visit_expr(self, expr)
            }
        }
    }

    fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
        if !self.handled.contains(&key_of(&range(call))) && self.names.is_unrecognised_request(call)
        {
            // Never silently left legacy: a client request on a receiver the port does not
            // trace to the peer (`self.state.peer`, a peer in a struct) is named in the report.
            let receiver: String = self
                .src
                .text_of(&*call.receiver)
                .split_whitespace()
                .collect();
            self.manual(
                range(&call.method).start,
                format!("`{receiver}.{}(..)` looks like a client request on a peer the port does not trace (only a `Peer<RoleServer>` parameter, `context.peer`, `self.peer` and their clones are)", call.method),
                "pass the peer to this function as a `Peer<RoleServer>` (or `RequestContext<RoleServer>`) parameter and run the port again, or write the `ask!` by hand",
            );
        }
        if !self.handled.contains(&key_of(&range(call))) && self.names.is_any_request(call) {
            let method = call.method.to_string();
            let offset = range(&call.method).start;
            let receiver: String = self
                .src
                .text_of(&*call.receiver)
                .split_whitespace()
                .collect();
            let untyped = method == "elicit" && call.turbofish.is_none();
            match unsupported_request(&method) {
                None if untyped => self.manual(
                    offset,
                    format!("`{receiver}.elicit(..)` without `::<T>`: the port names the type in `elicit::<T>`"),
                    "write the type on the call (`.elicit::<T>(..)`) and run the port again",
                ),
                Some(suggestion) => self.manual(
                    offset,
                    format!("`{receiver}.{method}(..)` has no direct `ask!` form the port can prove equivalent"),
                    suggestion,
                ),
                None => {
                    let place = self
                        .nested
                        .last()
                        .copied()
                        .unwrap_or("not the first thing its statement evaluates");
                    let suggestion = match place {
                        "inside a closure" => {
                            "ask at the top level of the handler (`let answer = ask!(key: ..);`) and pass the answer into the closure"
                        }
                        "inside an `async` block" => {
                            "an `async` block (a spawned task, a future kept for later) runs outside the round: ask before it in the handler and move the answer in, or drop the request"
                        }
                        _ => {
                            "bind the answer first with `let answer = ask!(key: ..);` as its own statement, then use it"
                        }
                    };
                    self.manual(
                        offset,
                        format!(
                            "`{receiver}.{method}(..)` is {place}: the state machine cannot suspend there"
                        ),
                        suggestion,
                    )
                }
            }
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_path(&mut self, path: &'a syn::ExprPath) {
        if let Some(name) = super::peer::single_ident(&path.path)
            && self.names.contains(&name)
        {
            self.out.peer_uses.push((name, range(path).start));
        }
    }

    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let mut tokens = Vec::new();
        flatten(mac.tokens.clone(), &mut tokens);
        for (index, token) in tokens.iter().enumerate() {
            let proc_macro2::TokenTree::Ident(ident) = token else {
                continue;
            };
            let text = ident.to_string();
            if self.names.contains(&text) {
                self.out
                    .peer_uses
                    .push((text.clone(), ident.span().byte_range().start));
            }
            let is_request = matches!(
                text.as_str(),
                "elicit" | "create_message" | "list_roots" | "create_elicitation" | "elicit_url"
            );
            let after_dot = index > 0
                && matches!(&tokens[index - 1], proc_macro2::TokenTree::Punct(p) if p.as_char() == '.');
            if is_request && after_dot {
                let why = if name == "select" {
                    "raced inside `select!`: a 2026-07-28 round that asks ends, so the race has no equivalent"
                } else {
                    "inside a macro the port does not read"
                };
                self.manual(
                    ident.span().byte_range().start,
                    format!("`.{text}(..)` {why} (`{name}!`)"),
                    "write the `ask!` on its own before the macro and keep `select!`/`timeout` around the slow work only",
                );
            }
        }
    }
}

fn flatten(stream: proc_macro2::TokenStream, out: &mut Vec<proc_macro2::TokenTree>) {
    for tt in stream {
        if let proc_macro2::TokenTree::Group(g) = &tt {
            out.push(tt.clone());
            flatten(g.stream(), out);
        } else {
            out.push(tt);
        }
    }
}

impl<'a> Scanner<'a> {
    /// A call to a function of this file: `f(..)`, `self.f(..)`, `Self::f(..)`.
    pub(super) fn call_of(&self, expr: &'a Expr) -> Option<Call> {
        let (callee, args, end, offset) = match expr {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let segments: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let callee = segments.last()?.clone();
                let is_self_path = segments.len() == 2 && segments[0] == "Self";
                if segments.len() != 1 && !is_self_path {
                    return None;
                }
                (callee, &c.args, range(c).end - 1, range(c).start)
            }
            Expr::MethodCall(m) => {
                let Expr::Path(p) = &*m.receiver else {
                    return None;
                };
                if !p.path.is_ident("self") {
                    return None;
                }
                (
                    m.method.to_string(),
                    &m.args,
                    range(m).end - 1,
                    range(m).start,
                )
            }
            _ => return None,
        };
        if !self.functions.contains(&callee) {
            return None;
        }
        // `self.f(a)`: argument 0 is parameter 1 (after `self`); `Self::f(self, a)` lines up.
        let shift = usize::from(matches!(expr, Expr::MethodCall(_)));
        let args = args
            .pairs()
            .enumerate()
            .map(|(i, pair)| {
                let a = pair.value();
                let peer = self.names.root_of(a).or_else(|| self.names.context_of(a));
                Argument {
                    param: i + shift,
                    range: range(*a),
                    comma: pair.punct().map(|c| range(*c)),
                    peer,
                }
            })
            .collect::<Vec<_>>();
        Some(Call {
            callee,
            has_args: !args.is_empty(),
            args,
            args_end: end,
            position: Err("not awaited"),
            key_hint: self.binding.clone(),
            offset,
        })
    }

    pub(super) fn record_call(
        &mut self,
        mut call: Call,
        position: Result<Range<usize>, &'static str>,
    ) {
        call.position = position;
        self.out.calls.push(call);
    }

    pub(super) fn visit_call_args(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(c) => c.args.iter().for_each(|a| self.visit_expr(a)),
            Expr::MethodCall(m) => m.args.iter().for_each(|a| self.visit_expr(a)),
            _ => {}
        }
    }
}

/// The pattern under a type ascription (`let x: T = ..` → `x`).
pub(super) fn strip_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(t) => &t.pat,
        p => p,
    }
}
