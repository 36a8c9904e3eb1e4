//! Capability probes on the peer → this request's `ClientCaps`.
//!
//! Under the legacy handshake capabilities were declared once per session and read from the
//! peer; on 2026-07-28 each request declares its own, so a probe reads the request's.

use std::ops::Range;

use syn::{Expr, UnOp};

use super::peer::PeerNames;
use crate::source::range;

pub struct Probe {
    pub range: Range<usize>,
    pub text: String,
}

/// `peer.supported_elicitation_modes().is_empty()`, its negation, `.contains(&ElicitationMode::Url)`,
/// `peer.peer_info().is_some_and(|info| info.capabilities.sampling.is_some())`.
pub fn recognise(expr: &Expr, names: &PeerNames, caps: &str) -> Option<Probe> {
    if let Expr::Unary(u) = expr
        && matches!(u.op, UnOp::Not(_))
        && let Some((negated, method)) = capability(&u.expr, names)
    {
        let not = if negated { "" } else { "!" };
        return Some(Probe {
            range: range(expr),
            text: format!("{not}{caps}.{method}()"),
        });
    }
    let (negated, method) = capability(expr, names)?;
    let not = if negated { "!" } else { "" };
    Some(Probe {
        range: range(expr),
        text: format!("{not}{caps}.{method}()"),
    })
}

/// The `ClientCaps` method a probe asks, and whether the probe asks its negation.
fn capability(expr: &Expr, names: &PeerNames) -> Option<(bool, &'static str)> {
    let Expr::MethodCall(outer) = expr else {
        return None;
    };
    let Expr::MethodCall(inner) = &*outer.receiver else {
        return None;
    };
    names.root_of(&inner.receiver)?;
    match (
        inner.method.to_string().as_str(),
        outer.method.to_string().as_str(),
    ) {
        ("supported_elicitation_modes", "is_empty") => Some((true, "elicitation_form")),
        ("supported_elicitation_modes", "contains") => {
            let arg = quote::ToTokens::to_token_stream(outer.args.first()?).to_string();
            if arg.ends_with("Url") {
                Some((false, "elicitation_url"))
            } else if arg.ends_with("Form") {
                Some((false, "elicitation_form"))
            } else {
                None
            }
        }
        ("peer_info", "is_some_and") => {
            let Expr::Closure(closure) = outer.args.first()? else {
                return None;
            };
            let body = quote::ToTokens::to_token_stream(&*closure.body)
                .to_string()
                .replace(' ', "");
            let field = body
                .strip_suffix(".is_some()")?
                .rsplit('.')
                .next()?
                .to_string();
            let method = match field.as_str() {
                "elicitation" => "elicitation_form",
                "sampling" => "sampling",
                "roots" => "roots",
                _ => return None,
            };
            body.contains(".capabilities.").then_some((false, method))
        }
        _ => None,
    }
}
