//! One function body, read once: every client request and how it is consumed, every capability
//! probe, every call to another function of the file, every use of the peer.

use std::collections::BTreeSet;
use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Expr, Local, Pat, Stmt};

use super::arms::{self, Unmappable};
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
    src: &'a Source,
    names: PeerNames,
    functions: &'a BTreeSet<String>,
    caps: String,
    pub keys: Keys,
    pub out: Scan,
    /// Closures and `async` blocks around the current expression: a request there cannot be
    /// an `ask!` (the state machine cannot suspend inside them).
    nested: Vec<&'static str>,
    /// Request calls already rewritten by an enclosing form.
    handled: BTreeSet<(usize, usize)>,
    /// Awaits that are the first thing their statement evaluates.
    leading: BTreeSet<(usize, usize)>,
    /// The `let` binding name of the statement being read, for keys.
    binding: Option<String>,
    /// Where the statement being read starts: a capability check goes in front of it.
    statement_start: usize,
}

fn key_of(r: &Range<usize>) -> (usize, usize) {
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

    fn request_text(&self, request: &Request) -> String {
        let call = request.call;
        match &request.kind {
            RequestKind::Elicit { .. } => {
                let ty = &call
                    .turbofish
                    .as_ref()
                    .expect("elicit has a turbofish")
                    .args[0];
                format!(
                    "elicit::<{}>({})",
                    self.src.text_of(ty),
                    self.src.text_of(&call.args[0])
                )
            }
            RequestKind::Sample => format!("sample({})", self.src.text_of(&call.args[0])),
            RequestKind::Roots => "roots()".into(),
        }
    }

    fn ask_text(&self, key: &str, request: &Request) -> String {
        format!("ask!({key}: {})", self.request_text(request))
    }

    /// `ask!` standing for the legacy `Result`, for values used in ways the port does not
    /// rewrite (`?`, `.map_err(..)?`, passed on): the code around it is unchanged and sees the
    /// same `Result` for every answer the legacy call could return.
    fn adapter_text(&self, key: &str, request: &Request, at: usize) -> String {
        let indent = self.src.indent_at(at);
        let ask = self.ask_text(key, request);
        match request.kind {
            RequestKind::Elicit { .. } => format!(
                "match {ask} {{\n{indent}    Answer::Accept(value) => Ok(Some(value)),\n{indent}    Answer::Decline => Err(rmcp::service::ElicitationError::UserDeclined),\n{indent}    Answer::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),\n{indent}}}"
            ),
            _ => format!(
                "match {ask} {{\n{indent}    Answer::Accept(value) => Ok(value),\n{indent}    Answer::Decline | Answer::Cancel => Err(rmcp::ServiceError::Cancelled {{\n{indent}        reason: Some(\"the client declined the request\".into()),\n{indent}    }}),\n{indent}}}"
            ),
        }
    }

    fn key_for(&mut self, hint: Option<&str>, kind: &RequestKind) -> String {
        let base = match (hint, kind) {
            (Some(h), _) if h != "_" => h.trim_start_matches('_').to_string(),
            (_, RequestKind::Elicit { ty }) => super::keys::snake(ty),
            (_, RequestKind::Sample) => "sampled".into(),
            (_, RequestKind::Roots) => "roots".into(),
        };
        self.keys.fresh(&base)
    }

    fn record_site(&mut self, request: &Request, site: Site) {
        if let RequestKind::Elicit { ty } = &request.kind {
            self.out
                .elicited
                .push((ty.clone(), range(request.call).start));
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

    fn manual(&mut self, offset: usize, what: String, suggestion: impl Into<String>) {
        self.out.manual.push(Manual {
            offset,
            what,
            suggestion: suggestion.into(),
        });
    }

    /// An awaited request: `REQ.await`.
    fn awaited<'e>(&self, expr: &'e Expr) -> Option<Request<'e>> {
        match expr {
            Expr::Await(a) => self.names.request(&a.base),
            Expr::Paren(p) => self.awaited(&p.expr),
            _ => None,
        }
    }

    /// The chain of expressions a statement evaluates first, outermost first: the receiver of
    /// a method call, the operand of `?` and `.await`, a `match` or `if let` scrutinee.
    fn leading_chain<'e>(expr: &'e Expr, chain: &mut Vec<&'e Expr>) {
        chain.push(expr);
        let next = match expr {
            Expr::MethodCall(m) => &*m.receiver,
            Expr::Try(t) => &*t.expr,
            Expr::Await(a) => &*a.base,
            Expr::Field(f) => &*f.base,
            Expr::Paren(p) => &*p.expr,
            Expr::Match(m) => &*m.expr,
            Expr::If(i) => match &*i.cond {
                Expr::Let(l) => &*l.expr,
                c => c,
            },
            Expr::Return(r) => match &r.expr {
                Some(e) => e,
                None => return,
            },
            Expr::Reference(r) => &*r.expr,
            _ => return,
        };
        Self::leading_chain(next, chain);
    }

    /// Reads one statement's leading expression: the `ask!`-able request or helper call in it.
    fn lead(&mut self, expr: &'a Expr, hint: Option<String>) -> bool {
        let mut chain = Vec::new();
        Self::leading_chain(expr, &mut chain);
        for e in &chain {
            if let Expr::Await(a) = e {
                self.leading.insert(key_of(&range(*e)));
                let _ = a;
            }
        }
        self.binding = hint.clone();
        // The idiomatic forms first: a match or `if let` straight on the request.
        match expr {
            Expr::Match(m) if self.nested.is_empty() => {
                if let Some(request) = self.awaited(&m.expr) {
                    return self.match_form(m, request, hint.as_deref());
                }
            }
            Expr::If(i) if self.nested.is_empty() => {
                if let Expr::Let(l) = &*i.cond
                    && let Some(request) = self.awaited(&l.expr)
                {
                    return self.if_let_form(i, l, request, hint.as_deref());
                }
            }
            _ => {}
        }
        if !self.nested.is_empty() {
            return false;
        }
        for e in chain {
            if let Some(request) = self.awaited(e) {
                let key = self.key_for(hint.as_deref(), &request.kind);
                let at = range(e);
                let text = self.adapter_text(&key, &request, at.start);
                let site = Site {
                    key,
                    edits: vec![(at.clone(), text)],
                    covers: at,
                    adapted: true,
                };
                self.record_site(&request, site);
                break;
            }
        }
        false
    }

    fn match_form(
        &mut self,
        m: &'a syn::ExprMatch,
        request: Request<'a>,
        hint: Option<&str>,
    ) -> bool {
        let capability_check = match self.capability_check(m, &request) {
            Ok(check) => check,
            Err(offset) => {
                self.handled.insert(key_of(&range(request.call)));
                self.manual(
                    offset,
                    "an `Err(CapabilityNotSupported)` arm whose value is used: on 2026-07-28 the runtime answers a request without the capability with -32021 before any arm runs".into(),
                    "test `caps.elicitation_form()` (a `caps: ClientCaps` parameter) before the request and take the fallback there, then port the request",
                );
                self.visit_arms(m);
                return true;
            }
        };
        let mapped = match arms::map_match(&m.arms, &request.kind, self.src) {
            Ok(mapped) => mapped,
            Err(Unmappable(why)) => {
                // Keep the legacy `Result` for the match as written.
                let key = self.key_for(hint, &request.kind);
                let at = range(&*m.expr);
                let text = self.adapter_text(&key, &request, at.start);
                self.out.notes.push(Manual {
                    offset: at.start,
                    what: format!("kept the legacy `Result` around `ask!({key}: ..)`: {why}"),
                    suggestion: "match on the `Answer` directly when you next touch this code"
                        .into(),
                });
                let site = Site {
                    key,
                    edits: vec![(at.clone(), text)],
                    covers: at,
                    adapted: true,
                };
                self.record_site(&request, site);
                self.visit_arms(m);
                return true;
            }
        };
        let key = self.key_for(hint, &request.kind);
        let at = range(&*m.expr);
        let mut edits = vec![(at.clone(), self.ask_text(&key, &request))];
        edits.extend(capability_check);
        edits.extend(self.arm_edits(m, &mapped));
        let site = Site {
            key,
            edits,
            covers: at,
            adapted: false,
        };
        self.record_site(&request, site);
        self.visit_arms(m);
        true
    }

    /// A legacy `Err(CapabilityNotSupported) => return ..` arm: the runtime never lets a
    /// request without the capability reach it (the ask fails with -32021), so the fallback
    /// moves in front of the statement as `if !caps.elicitation_form() { .. }`. `Err(offset)`
    /// when the arm gives the match a value instead of leaving the function.
    fn capability_check(
        &mut self,
        m: &syn::ExprMatch,
        request: &Request,
    ) -> Result<Option<(Range<usize>, String)>, usize> {
        if !matches!(request.kind, RequestKind::Elicit { .. }) {
            return Ok(None);
        }
        let Some(arm) = m.arms.iter().find(|a| arms::is_capability_arm(&a.pat)) else {
            return Ok(None);
        };
        let start = self.statement_start;
        let indent = self.src.indent_at(start).to_string();
        let caps = &self.caps;
        let check = match &*arm.body {
            Expr::Block(b) if ends_in_return(&b.block) => {
                format!(
                    "if !{caps}.elicitation_form() {}\n{indent}",
                    self.src.text_of(&b.block)
                )
            }
            Expr::Return(r) => format!(
                "if !{caps}.elicitation_form() {{\n{indent}    {};\n{indent}}}\n{indent}",
                self.src.text_of(r)
            ),
            _ => return Err(range(&arm.pat).start),
        };
        self.out.needs_caps = true;
        Ok(Some((start..start, check)))
    }

    fn arm_edits(
        &self,
        m: &syn::ExprMatch,
        mapped: &arms::MappedMatch,
    ) -> Vec<(Range<usize>, String)> {
        let mut edits = Vec::new();
        for (index, (arm, new)) in m.arms.iter().zip(&mapped.arms).enumerate() {
            match &new.pattern {
                Some(p) => edits.push((range(&arm.pat), p.clone())),
                None if mapped.merged_no_content.contains(&index) => {
                    let whole = arms::arm_range(arm);
                    edits.push((
                        whole,
                        "// mrtr-port: `Ok(None)` (no content) is `Answer::Cancel` now; its own arm is gone".into(),
                    ));
                }
                None => edits.push((self.src.whole_lines(arms::arm_range(arm)), String::new())),
            }
        }
        edits
    }

    fn visit_arms(&mut self, m: &'a syn::ExprMatch) {
        for arm in &m.arms {
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn if_let_form(
        &mut self,
        i: &'a syn::ExprIf,
        l: &'a syn::ExprLet,
        request: Request<'a>,
        hint: Option<&str>,
    ) -> bool {
        let hint = hint.map(str::to_string).or_else(|| first_binding(&l.pat));
        let key = self.key_for(hint.as_deref(), &request.kind);
        let at = range(&*l.expr);
        let edits = match arms::map_single(&l.pat, &request.kind, self.src) {
            Ok(pattern) => vec![
                (range(&*l.pat), pattern),
                (at.clone(), self.ask_text(&key, &request)),
            ],
            Err(_) => vec![(at.clone(), self.adapter_text(&key, &request, at.start))],
        };
        let adapted = edits.len() == 1;
        let site = Site {
            key,
            edits,
            covers: at,
            adapted,
        };
        self.record_site(&request, site);
        self.visit_block(&i.then_branch);
        if let Some((_, e)) = &i.else_branch {
            self.visit_expr(e);
        }
        true
    }

    /// `let x = REQ.await;` and `let PAT = REQ.await else { .. };`.
    fn local_form(&mut self, local: &'a Local, rest: &'a [Stmt]) -> bool {
        let Some(init) = &local.init else {
            return false;
        };
        if !self.nested.is_empty() {
            return false;
        }
        let Some(request) = self.awaited(&init.expr) else {
            return false;
        };
        let at = range(&*init.expr);
        if let Some((_, diverge)) = &init.diverge {
            let hint = first_binding(&local.pat);
            let key = self.key_for(hint.as_deref(), &request.kind);
            let edits = match arms::map_single(&local.pat, &request.kind, self.src) {
                Ok(pattern) => vec![
                    (range(&local.pat), pattern),
                    (at.clone(), self.ask_text(&key, &request)),
                ],
                Err(_) => vec![(at.clone(), self.adapter_text(&key, &request, at.start))],
            };
            let adapted = edits.len() == 1;
            self.record_site(
                &request,
                Site {
                    key,
                    edits,
                    covers: at,
                    adapted,
                },
            );
            self.visit_expr(diverge);
            return true;
        }
        let Pat::Ident(binding) = strip_type(&local.pat) else {
            return false;
        };
        let name = binding.ident.to_string();
        let key = self.key_for(Some(&name), &request.kind);
        // `let x: Result<Option<T>, ElicitationError> = ..` names the legacy type: keep it.
        let uses = match &local.pat {
            Pat::Type(_) => Err("the binding's type is written out".to_string()),
            _ => super::uses::find(&name, rest),
        };
        let mut edits = vec![(at.clone(), self.ask_text(&key, &request))];
        let mapped = uses.as_ref().map_err(|e| e.clone()).and_then(|uses| {
            super::uses::rewrite(uses, &request.kind, self.src, |m, mm| self.arm_edits(m, mm))
                .map_err(|u| u.0)
        });
        let adapted = match mapped {
            Ok(more) => {
                edits.extend(more);
                false
            }
            Err(_) => {
                edits = vec![(at.clone(), self.adapter_text(&key, &request, at.start))];
                true
            }
        };
        self.record_site(
            &request,
            Site {
                key,
                edits,
                covers: at,
                adapted,
            },
        );
        true
    }

    fn statement(&mut self, stmt: &'a Stmt, rest: &'a [Stmt]) {
        self.statement_start = range(stmt).start;
        self.statement_inner(stmt, rest);
        self.binding = None;
    }

    fn statement_inner(&mut self, stmt: &'a Stmt, rest: &'a [Stmt]) {
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

    fn alias(&mut self, local: &'a Local) -> bool {
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

    /// `let (a, b) = tokio::join!(peer.elicit::<A>(..), peer.create_message(..));`: both
    /// requests in one round, `ask!(a: .., b: ..)`.
    fn join_form(&mut self, local: &'a Local, init: &'a Expr, rest: &'a [Stmt]) -> Option<bool> {
        let Expr::Macro(mac) = init else { return None };
        let name = mac.mac.path.segments.last()?.ident.to_string();
        if name != "join" || !self.nested.is_empty() {
            return None;
        }
        let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
        let exprs = mac.mac.parse_body_with(parser).ok()?;
        let Pat::Tuple(tuple) = strip_type(&local.pat) else {
            return None;
        };
        if tuple.elems.len() != exprs.len() {
            return None;
        }
        let mut parts = Vec::new();
        let mut edits = Vec::new();
        let mut requests = Vec::new();
        for (pat, expr) in tuple.elems.iter().zip(exprs.iter()) {
            let request = self.names.request(expr)?;
            let Pat::Ident(binding) = pat else {
                return None;
            };
            let name = binding.ident.to_string();
            let uses = super::uses::find(&name, rest).ok()?;
            let more = super::uses::rewrite(&uses, &request.kind, self.src, |m, mm| {
                self.arm_edits(m, mm)
            })
            .ok()?;
            edits.extend(more);
            requests.push((name, request));
        }
        for (name, request) in &requests {
            let key = self.keys.fresh(name);
            parts.push(format!("{key}: {}", self.request_text(request)));
            if let RequestKind::Elicit { ty } = &request.kind {
                self.out
                    .elicited
                    .push((ty.clone(), range(request.call).start));
            }
        }
        let indent = self.src.indent_at(range(local).start).to_string();
        let text = format!(
            "ask!(\n{indent}    {},\n{indent})",
            parts.join(&format!(",\n{indent}    "))
        );
        let at = range(init);
        edits.push((at.clone(), text));
        for (i, (name, request)) in requests.iter().enumerate() {
            self.handled.insert(key_of(&range(request.call)));
            let site_edits = if i == 0 {
                std::mem::take(&mut edits)
            } else {
                Vec::new()
            };
            self.out.sites.push(Site {
                key: name.clone(),
                edits: site_edits,
                covers: at.clone(),
                adapted: false,
            });
        }
        Some(true)
    }

    fn call_position(
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

fn ends_in_return(block: &syn::Block) -> bool {
    matches!(block.stmts.last(), Some(Stmt::Expr(Expr::Return(_), _)))
}

fn strip_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(t) => &t.pat,
        p => p,
    }
}

/// The first name a pattern binds (`Ok(Some(target))` → `target`), for a key.
fn first_binding(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(i)
            if !i.ident.to_string().starts_with(char::is_uppercase) && i.ident != "None" =>
        {
            Some(i.ident.to_string())
        }
        Pat::TupleStruct(ts) => ts.elems.iter().find_map(first_binding),
        Pat::Struct(s) => s.fields.iter().find_map(|f| first_binding(&f.pat)),
        Pat::Or(o) => o.cases.iter().find_map(first_binding),
        Pat::Paren(p) => first_binding(&p.pat),
        Pat::Type(t) => first_binding(&t.pat),
        _ => None,
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
        if !self.handled.contains(&key_of(&range(call))) && self.names.is_any_request(call) {
            let method = call.method.to_string();
            let offset = range(&call.method).start;
            let receiver = self.src.text_of(&*call.receiver).to_string();
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
    fn call_of(&self, expr: &'a Expr) -> Option<Call> {
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

    fn record_call(&mut self, mut call: Call, position: Result<Range<usize>, &'static str>) {
        call.position = position;
        self.out.calls.push(call);
    }

    fn visit_call_args(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(c) => c.args.iter().for_each(|a| self.visit_expr(a)),
            Expr::MethodCall(m) => m.args.iter().for_each(|a| self.visit_expr(a)),
            _ => {}
        }
    }
}
