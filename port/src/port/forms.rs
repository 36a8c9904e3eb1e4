//! How an awaited request is consumed, and what it becomes: a `match` or `if let` on it, a
//! `let .. else`, a binding tested later, two requests in `tokio::join!`, or (for any other use)
//! an `ask!` that rebuilds the legacy `Result`.

use std::ops::Range;

use syn::visit::Visit;
use syn::{Expr, Local, Pat, Stmt};

use super::arms::{self, Unmappable};
use super::peer::{Request, RequestKind};
use super::scan::{Manual, Scanner, Site, key_of, strip_type};
use crate::source::range;

impl<'a> Scanner<'a> {
    pub(super) fn request_text(&self, request: &Request) -> String {
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
            RequestKind::ElicitUrl => format!(
                "elicit_url({}, {})",
                self.src.text_of(&call.args[0]),
                self.src.text_of(&call.args[1])
            ),
            RequestKind::ElicitSchema { message, schema } => {
                // `message: "..".into()` named a `String` field; the builder takes
                // `impl Into<String>`, where the `.into()` would leave the type open.
                let message = match &**message {
                    Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => &*m.receiver,
                    other => other,
                };
                format!(
                    "elicit_with_schema::<serde_json::Value>({}, serde_json::to_value(&{}).expect(\"an elicitation schema serializes\"))",
                    self.src.text_of(message),
                    self.src.text_of(&**schema)
                )
            }
        }
    }

    pub(super) fn ask_text(&self, key: &str, request: &Request) -> String {
        format!("ask!({key}: {})", self.request_text(request))
    }

    /// `ask!` standing for the legacy `Result`, for values used in ways the port does not
    /// rewrite (`?`, `.map_err(..)?`, passed on): the code around it is unchanged and sees the
    /// same `Result` for every answer the legacy call could return.
    pub(super) fn adapter_text(&self, key: &str, request: &Request, at: usize) -> String {
        let indent = self.src.indent_at(at);
        let ask = self.ask_text(key, request);
        match request.kind {
            RequestKind::Elicit { .. } => format!(
                "match {ask} {{\n{indent}    Answer::Accept(value) => Ok(Some(value)),\n{indent}    Answer::Decline => Err(rmcp::service::ElicitationError::UserDeclined),\n{indent}    Answer::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),\n{indent}}}"
            ),
            RequestKind::ElicitSchema { .. } => format!(
                "match {ask} {{\n{indent}    Answer::Accept(content) => Ok::<_, rmcp::ServiceError>(\n{indent}        rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept).with_content(content),\n{indent}    ),\n{indent}    Answer::Decline => Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline)),\n{indent}    Answer::Cancel => Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Cancel)),\n{indent}}}"
            ),
            RequestKind::ElicitUrl => format!(
                "match {ask} {{\n{indent}    Answer::Accept(()) => Ok::<_, rmcp::service::ElicitationError>(rmcp::model::ElicitationAction::Accept),\n{indent}    Answer::Decline => Ok(rmcp::model::ElicitationAction::Decline),\n{indent}    Answer::Cancel => Ok(rmcp::model::ElicitationAction::Cancel),\n{indent}}}"
            ),
            _ => format!(
                "match {ask} {{\n{indent}    Answer::Accept(value) => Ok(value),\n{indent}    Answer::Decline | Answer::Cancel => Err(rmcp::ServiceError::Cancelled {{\n{indent}        reason: Some(\"the client declined the request\".into()),\n{indent}    }}),\n{indent}}}"
            ),
        }
    }

    pub(super) fn key_for(&mut self, hint: Option<&str>, kind: &RequestKind) -> String {
        let base = match (hint, kind) {
            (Some(h), _) if h != "_" => h.trim_start_matches('_').to_string(),
            (_, RequestKind::Elicit { ty }) => super::keys::snake(ty),
            (_, RequestKind::Sample) => "sampled".into(),
            (_, RequestKind::Roots) => "roots".into(),
            (_, RequestKind::ElicitUrl) => "opened".into(),
            (_, RequestKind::ElicitSchema { .. }) => "form".into(),
        };
        self.keys.fresh(&base)
    }

    pub(super) fn awaited<'e>(&self, expr: &'e Expr) -> Option<Request<'e>> {
        match expr {
            Expr::Await(a) => self.names.request(&a.base),
            Expr::Paren(p) => self.awaited(&p.expr),
            _ => None,
        }
    }

    /// The chain of expressions a statement evaluates first, outermost first: the receiver of
    /// a method call, the operand of `?` and `.await`, a `match` or `if let` scrutinee.
    pub(super) fn leading_chain<'e>(expr: &'e Expr, chain: &mut Vec<&'e Expr>) {
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
    pub(super) fn lead(&mut self, expr: &'a Expr, hint: Option<String>) -> bool {
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

    pub(super) fn match_form(
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
        // A catch-all error arm used to take "the client cannot do this" too; now the runtime
        // answers such a client -32021 before any arm runs. Said, unless the function already
        // checks the capability or an explicit capability arm became that check.
        if capability_check.is_none()
            && let Some(offset) = arms::catch_all_error(&m.arms, &request.kind, self.src)
        {
            self.note_capability_fallback(&key, &request.kind, offset);
        }
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
    pub(super) fn capability_check(
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

    pub(super) fn arm_edits(
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

    pub(super) fn visit_arms(&mut self, m: &'a syn::ExprMatch) {
        for arm in &m.arms {
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    /// Where a legacy client without the capability ended up (a catch-all arm, an `else`):
    /// it now gets -32021 before the handler sees anything. Said, unless the function already
    /// checks the capability.
    fn note_capability_fallback(&mut self, key: &str, kind: &RequestKind, offset: usize) {
        if !self.out.probes.is_empty() {
            return;
        }
        let check = match kind {
            RequestKind::Sample => "sampling()",
            RequestKind::Roots => "roots()",
            RequestKind::ElicitUrl => "elicitation_url()",
            _ => "elicitation_form()",
        };
        self.out.notes.push(Manual {
            offset,
            what: format!("clients without the capability `{key}` needs used to reach this code; they now get -32021 before the handler sees the answer"),
            suggestion: format!("if this was their fallback, test `caps.{check}` before the ask and take it there"),
        });
    }

    pub(super) fn if_let_form(
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
        let fallback = match &i.else_branch {
            Some((token, _)) => token.span.byte_range().start,
            None => range(i).start,
        };
        self.note_capability_fallback(&key, &request.kind, fallback);
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
    pub(super) fn local_form(&mut self, local: &'a Local, rest: &'a [Stmt]) -> bool {
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
            self.note_capability_fallback(&key, &request.kind, range(&**diverge).start);
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

    /// `let (a, b) = tokio::join!(peer.elicit::<A>(..), peer.create_message(..));`: both
    /// requests in one round, `ask!(a: .., b: ..)`.
    pub(super) fn join_form(
        &mut self,
        local: &'a Local,
        init: &'a Expr,
        rest: &'a [Stmt],
    ) -> Option<bool> {
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
}

pub(super) fn ends_in_return(block: &syn::Block) -> bool {
    matches!(block.stmts.last(), Some(Stmt::Expr(Expr::Return(_), _)))
}

/// The first name a pattern binds (`Ok(Some(target))` → `target`), for a key.
pub(super) fn first_binding(pat: &Pat) -> Option<String> {
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
