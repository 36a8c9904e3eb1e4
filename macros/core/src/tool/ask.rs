//! The `ask!(key: request, ..)` syntax.

use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, Macro, Token};

/// One `ask!` invocation: the keys of one round, in source order.
pub struct AskInvocation {
    pub entries: Vec<AskEntry>,
}

pub struct AskEntry {
    pub key: Ident,
    pub request: Expr,
}

impl Parse for AskInvocation {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut entries = Vec::new();
        while !input.is_empty() {
            let key: Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "an `ask!` key is an identifier naming the answer on the wire: write `ask!(target_env: elicit::<Target>(\"..\"))`",
                )
            })?;
            input.parse::<Token![:]>()?;
            let request: Expr = input.parse()?;
            entries.push(AskEntry { key, request });
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        if entries.is_empty() {
            return Err(input.error("`ask!` needs at least one `key: request` pair: `ask!(confirm: elicit::<Confirm>(\"..\"))`"));
        }
        Ok(AskInvocation { entries })
    }
}

/// `ask!(..)` or `mrtr::ask!(..)`.
pub fn is_ask(mac: &Macro) -> bool {
    let segments = &mac.path.segments;
    match segments.last() {
        Some(last) if last.ident == "ask" => {
            segments.len() == 1 || segments.first().is_some_and(|s| s.ident == "mrtr")
        }
        _ => false,
    }
}

/// Whether a token stream mentions `ask !`: another macro's arguments are opaque to the lowering.
pub fn tokens_mention_ask(tokens: &proc_macro2::TokenStream) -> Option<proc_macro2::Span> {
    use proc_macro2::TokenTree;
    let mut previous_ask: Option<proc_macro2::Span> = None;
    for tree in tokens.clone() {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == '!' => {
                if let Some(span) = previous_ask {
                    return Some(span);
                }
            }
            TokenTree::Group(g) => {
                if let Some(span) = tokens_mention_ask(&g.stream()) {
                    return Some(span);
                }
            }
            _ => {}
        }
        previous_ask = match &tree {
            TokenTree::Ident(i) if i == "ask" => Some(i.span()),
            _ => None,
        };
    }
    None
}
