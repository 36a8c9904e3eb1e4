//! How a legacy handler reaches the client: a `Peer<RoleServer>` (parameter, clone, field of a
//! `RequestContext`) and the requests it sends through it.

use std::collections::BTreeSet;

use syn::{Expr, FnArg, Pat, Type};

/// The names in one function through which the client is reached.
#[derive(Default, Clone)]
pub struct PeerNames {
    /// Bindings whose value is a `Peer<RoleServer>` (or a reference to one).
    pub peers: BTreeSet<String>,
    /// Bindings whose value is a `RequestContext<RoleServer>`: `context.peer` is a peer.
    pub contexts: BTreeSet<String>,
}

impl PeerNames {
    pub fn contains(&self, name: &str) -> bool {
        self.peers.contains(name) || self.contexts.contains(name)
    }

    /// The binding an expression reaches the peer through, if it is one: `peer`, `&peer`,
    /// `peer.clone()`, `context.peer`, `ctx.peer.clone()`, `self.peer`.
    pub fn root_of(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Path(p) => {
                let name = single_ident(&p.path)?;
                self.peers.contains(&name).then_some(name)
            }
            Expr::Field(f) => {
                let syn::Member::Named(member) = &f.member else {
                    return None;
                };
                if member != "peer" {
                    return None;
                }
                match &*f.base {
                    Expr::Path(p) => {
                        let name = single_ident(&p.path)?;
                        (self.contexts.contains(&name) || name == "self").then_some(name)
                    }
                    _ => None,
                }
            }
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.root_of(&m.receiver)
            }
            Expr::Reference(r) => self.root_of(&r.expr),
            Expr::Paren(p) => self.root_of(&p.expr),
            _ => None,
        }
    }

    /// Whether the expression is a whole context (`context`, `&ctx`, `context.clone()`).
    pub fn context_of(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Path(p) => {
                let name = single_ident(&p.path)?;
                self.contexts.contains(&name).then_some(name)
            }
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.context_of(&m.receiver)
            }
            Expr::Reference(r) => self.context_of(&r.expr),
            Expr::Paren(p) => self.context_of(&p.expr),
            _ => None,
        }
    }
}

/// `ElicitRequestParams::FormElicitationParams { message, requested_schema, .. }` written out
/// at the call: its message and schema. Params built elsewhere are not followed.
fn form_params(arg: &Expr) -> Option<RequestKind> {
    let Expr::Struct(lit) = arg else { return None };
    if lit.path.segments.last()?.ident != "FormElicitationParams" {
        return None;
    }
    let field = |name: &str| {
        lit.fields.iter().find_map(|f| match &f.member {
            syn::Member::Named(n) if n == name => Some(f.expr.clone()),
            _ => None,
        })
    };
    Some(RequestKind::ElicitSchema {
        message: Box::new(field("message")?),
        schema: Box::new(field("requested_schema")?),
    })
}

pub fn single_ident(path: &syn::Path) -> Option<String> {
    (path.leading_colon.is_none()
        && path.segments.len() == 1
        && path.segments[0].arguments.is_empty())
    .then(|| path.segments[0].ident.to_string())
}

/// What a parameter's type makes of it: a peer, a context, or neither.
pub enum ParamRole {
    Peer,
    Context,
    Caps,
    Other,
}

pub fn param_role(arg: &FnArg) -> (Option<String>, ParamRole) {
    let FnArg::Typed(typed) = arg else {
        return (None, ParamRole::Other);
    };
    let name = match &*typed.pat {
        Pat::Ident(i) => Some(i.ident.to_string()),
        _ => None,
    };
    let ty = match &*typed.ty {
        Type::Reference(r) => &*r.elem,
        ty => ty,
    };
    let Type::Path(path) = ty else {
        return (name, ParamRole::Other);
    };
    let last = path.path.segments.last().map(|s| s.ident.to_string());
    let role = match last.as_deref() {
        Some("Peer") => ParamRole::Peer,
        Some("RequestContext") => ParamRole::Context,
        Some("ClientCaps") => ParamRole::Caps,
        _ => ParamRole::Other,
    };
    (name, role)
}

/// A client request as rmcp sends it, and the `mrtr` request builder it becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// `peer.elicit::<T>(message)`: `Result<Option<T>, ElicitationError>`.
    Elicit { ty: String },
    /// `peer.create_message(params)`: `Result<CreateMessageResult, ServiceError>`.
    Sample,
    /// `peer.list_roots()`: `Result<ListRootsResult, ServiceError>`.
    Roots,
    /// `peer.elicit_url(message, url, id)`: `Result<ElicitationAction, ElicitationError>`.
    ElicitUrl,
    /// `peer.create_elicitation(ElicitRequestParams::FormElicitationParams { message,
    /// requested_schema, .. })`: `Result<ElicitResult, ServiceError>`, a hand-built schema.
    ElicitSchema {
        message: Box<Expr>,
        schema: Box<Expr>,
    },
}

pub struct Request<'a> {
    pub kind: RequestKind,
    pub call: &'a syn::ExprMethodCall,
}

/// The rmcp requests the port knows but cannot rewrite, with what to write instead.
pub fn unsupported_request(method: &str) -> Option<&'static str> {
    Some(match method {
        "create_elicitation" => {
            "write the params at the call as `ElicitRequestParams::FormElicitationParams { .. }` and run the port again, or write `ask!(key: elicit_with_schema::<T>(message, schema))` (or `elicit::<T>` with `#[derive(mrtr::Elicit)]`) and map its `Answer` arms"
        }
        "elicit_url_with_timeout" => {
            "write `ask!(key: elicit_url(message, url))`; it yields `Answer<()>` (no elicitation id: the runtime makes one)"
        }
        "elicit_with_timeout" => {
            "write `ask!(key: elicit::<T>(message))`: on 2026-07-28 the client holds the question, so there is no server-side timeout"
        }
        "create_message_with_timeout" | "list_roots_with_timeout" => {
            "write the `ask!` without the timeout: on 2026-07-28 the client holds the question"
        }
        _ => return None,
    })
}

impl PeerNames {
    pub fn request<'a>(&self, expr: &'a Expr) -> Option<Request<'a>> {
        let Expr::MethodCall(call) = expr else {
            return None;
        };
        self.root_of(&call.receiver)?;
        let kind = match call.method.to_string().as_str() {
            "elicit" => {
                let turbofish = call.turbofish.as_ref()?;
                if turbofish.args.len() != 1 || call.args.len() != 1 {
                    return None;
                }
                let syn::GenericArgument::Type(ty) = &turbofish.args[0] else {
                    return None;
                };
                RequestKind::Elicit {
                    ty: quote::ToTokens::to_token_stream(ty)
                        .to_string()
                        .replace(' ', ""),
                }
            }
            "create_message" if call.args.len() == 1 => RequestKind::Sample,
            "list_roots" if call.args.is_empty() => RequestKind::Roots,
            "elicit_url" if call.args.len() == 3 => RequestKind::ElicitUrl,
            "create_elicitation" if call.args.len() == 1 => form_params(&call.args[0])?,
            _ => return None,
        };
        Some(Request { kind, call })
    }

    /// A request-named call on a receiver the port cannot trace to the request's peer: any
    /// elicitation, and `.create_message(..)` / `.list_roots()` on a receiver naming a peer.
    /// Reported, not skipped.
    pub fn is_unrecognised_request(&self, call: &syn::ExprMethodCall) -> bool {
        let method = call.method.to_string();
        let request_named = matches!(
            method.as_str(),
            "elicit" | "create_message" | "list_roots" | "elicit_url" | "create_elicitation"
        ) || unsupported_request(&method).is_some();
        // The elicitation names are rmcp's own; `create_message`/`list_roots` are common
        // enough elsewhere that only a receiver naming a peer counts.
        let elicitation = method.starts_with("elicit") || method == "create_elicitation";
        request_named
            && self.root_of(&call.receiver).is_none()
            && (elicitation || mentions_peer(&call.receiver))
    }

    /// A request sent through the peer that is not one the port rewrites (yet): reported.
    pub fn is_any_request(&self, call: &syn::ExprMethodCall) -> bool {
        let method = call.method.to_string();
        let known = matches!(
            method.as_str(),
            "elicit" | "create_message" | "list_roots" | "elicit_url"
        );
        (known || unsupported_request(&method).is_some()) && self.root_of(&call.receiver).is_some()
    }
}

/// Whether an expression names a `peer` anywhere in its path (`self.state.peer`,
/// `ctx.inner.peer()`): what a user's own `create_message` on another type does not.
fn mentions_peer(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p
            .path
            .segments
            .iter()
            .any(|s| s.ident.to_string().contains("peer")),
        Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(name) if name.to_string().contains("peer"))
                || mentions_peer(&f.base)
        }
        Expr::MethodCall(m) => m.method.to_string().contains("peer") || mentions_peer(&m.receiver),
        Expr::Reference(r) => mentions_peer(&r.expr),
        Expr::Paren(p) => mentions_peer(&p.expr),
        _ => false,
    }
}
