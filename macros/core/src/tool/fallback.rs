//! Stage 8, fallback: on any error, the compile errors next to the method as written
//! (attributes, signature, body) with each `ask!` replaced by an answer of its request's type,
//! so the surrounding `#[tool_router]` impl still type-checks, rustc and rust-analyzer keep
//! checking the user's own code, and the only `ask!`-related errors are ours (tokio-macros
//! does the same for its attribute).
//!
//! Works on tokens rather than syn's tree because the invocations to replace can sit where syn
//! sees only opaque tokens (another macro's arguments) or where the body does not parse at all.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::Token;
use syn::parse::{ParseStream, Parser};

use crate::errors::Errors;

/// The errors, and the method as written with every `ask!` replaced.
pub fn method(method: &syn::ImplItemFn, errors: Errors) -> TokenStream {
    let compile_errors = errors.into_compile_errors();
    // Printed whole, the method ends with its body's group, inner attributes included.
    let mut head: Vec<TokenTree> = method.to_token_stream().into_iter().collect();
    let body = replace_asks(head.pop().into_iter().collect());
    let allow = body
        .diverges
        .then(|| quote!(#[allow(unreachable_code, unused_variables)]));
    let body = body.tokens;
    quote!(#compile_errors #allow #(#head)* #body)
}

/// A body with every `ask!` replaced.
pub struct Replaced {
    pub tokens: TokenStream,
    /// Some `ask!` was too malformed to read its requests: it became a diverging expression, so
    /// the code after it is unreachable and the locals only its requests used are unused.
    pub diverges: bool,
}

/// Replaces every `<path ending in ask>!(..)` in `tokens`, at any depth, keeping every other
/// token and its span.
///
/// `ask!(k: r)` becomes `unlowered(r)` (from the runtime's private path), an `Answer` typed by the request
/// exactly as the lowered `ask!` would be, and `ask!(k1: r1, k2: r2)` a tuple of those. A
/// diverging `!` would not do: a binding initialised by it has no type, so the handler's next
/// `answer.is_accept()` would fail with "type annotations needed".
pub fn replace_asks(tokens: TokenStream) -> Replaced {
    let mut rewriter = Rewriter {
        diverges: false,
        in_select: false,
    };
    let tokens = rewriter
        .stream(tokens, Delimiter::None)
        .unwrap_or_else(|same| same);
    Replaced {
        tokens,
        diverges: rewriter.diverges,
    }
}

struct Rewriter {
    diverges: bool,
    /// Inside `select!(..)`, whose branches await their expressions: an answer stands there as
    /// a ready future, so the only error is the lowering's own.
    in_select: bool,
}

impl Rewriter {
    /// `Ok` with the rewritten stream if it held an `ask!`, `Err` with the stream untouched if
    /// not, so that groups without one keep their exact open and close spans.
    fn stream(
        &mut self,
        tokens: TokenStream,
        delimiter: Delimiter,
    ) -> Result<TokenStream, TokenStream> {
        let input: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(input.len());
        let mut replaced = false;
        let mut i = 0;
        while i < input.len() {
            if let Some((ask, args)) = invocation_at(&input, i) {
                replaced = true;
                let path = take_path(&mut out, ask);
                let statement = delimiter == Delimiter::Brace && starts_statement(&out);
                let inner = self
                    .stream(args.stream(), args.delimiter())
                    .unwrap_or_else(|same| same);
                let mut answer = self.answer(&path, inner, ask.span());
                if self.in_select {
                    answer = quote_spanned!(ask.span()=> ::core::future::ready(#answer));
                }
                // A statement that discards the answer would otherwise warn: `Answer` is
                // `#[must_use]`, while the real `ask!(k: r);` waits for an answer and drops it.
                out.extend(match input.get(i + 3) {
                    Some(TokenTree::Punct(p)) if statement && p.as_char() == ';' => {
                        quote!(let _ = #answer)
                    }
                    // `ask! { .. }` is a statement of its own, with no `;` after it.
                    Some(_) if statement && args.delimiter() == Delimiter::Brace => {
                        quote!(let _ = #answer;)
                    }
                    _ => answer,
                });
                i += 3;
                continue;
            }
            match &input[i] {
                TokenTree::Group(group) => match self.group(group, &out) {
                    Ok(inner) => {
                        replaced = true;
                        let mut rebuilt = Group::new(group.delimiter(), inner);
                        rebuilt.set_span(group.span());
                        out.push(rebuilt.into());
                    }
                    Err(_) => out.push(input[i].clone()),
                },
                other => out.push(other.clone()),
            }
            i += 1;
        }
        if replaced {
            Ok(out.into_iter().collect())
        } else {
            Err(tokens)
        }
    }

    /// A group's stream, rewritten; the arguments of a `select!` with `in_select` set.
    fn group(&mut self, group: &Group, before: &[TokenTree]) -> Result<TokenStream, TokenStream> {
        let select = matches!(
            before,
            [.., TokenTree::Ident(name), TokenTree::Punct(bang)] if name == "select" && bang.as_char() == '!'
        );
        let outer = self.in_select;
        self.in_select = outer || select;
        let result = self.stream(group.stream(), group.delimiter());
        self.in_select = outer;
        result
    }

    /// The expression standing for one invocation, spanned at its `ask` so that an error about
    /// the request's type points there.
    fn answer(&mut self, path: &TokenStream, args: TokenStream, span: Span) -> TokenStream {
        // Keeps the user's `use mrtr::ask` used, as the lowered body does; a foreign macro
        // that merely ends in `ask` would not accept it.
        let marker = is_mrtr_path(path).then(|| quote_spanned!(span=> #path!(@lowered);));
        let Some(requests) = requests(args) else {
            self.diverges = true;
            // The parentheses keep the block an expression when it starts a statement, e.g. in
            // `ask!(..).is_accept();`.
            return quote_spanned!(span=> ({ #marker ::core::unreachable!() }));
        };
        let mut marker = marker;
        let rt = crate::runtime_at(span);
        let answers: Vec<TokenStream> = requests
            .iter()
            .map(|request| {
                let marker = marker.take();
                // `ask!(site: helper(..).await)`: the helper's value, typed by its `Call`.
                // Anything else awaited is not a helper (its own error says so): kept as written.
                if let syn::Expr::Await(awaited) = request {
                    let call = &awaited.base;
                    return match &**call {
                        syn::Expr::Call(_) | syn::Expr::MethodCall(_) => {
                            quote_spanned!(span=> #rt::unlowered_helper({ #marker #call }))
                        }
                        _ => quote_spanned!(span=> { #marker #request }),
                    };
                }
                quote_spanned! {span=>
                    #rt::unlowered({
                        #[allow(unused_imports)]
                        use #rt::requests::*;
                        #marker
                        #request
                    })
                }
            })
            .collect();
        match answers.as_slice() {
            [single] => single.clone(),
            many => quote_spanned!(span=> (#(#many),*)),
        }
    }
}

/// `ask ! (..)` starting at `i`: the `ask` identifier and the argument group.
fn invocation_at(input: &[TokenTree], i: usize) -> Option<(&proc_macro2::Ident, &Group)> {
    match (input.get(i)?, input.get(i + 1)?, input.get(i + 2)?) {
        (TokenTree::Ident(ask), TokenTree::Punct(bang), TokenTree::Group(args))
            if ask == "ask" && bang.as_char() == '!' =>
        {
            Some((ask, args))
        }
        _ => None,
    }
}

/// Moves the path segments before `ask` (`mrtr::`, `::mrtr::prelude::`) from `out` into the
/// returned path.
fn take_path(out: &mut Vec<TokenTree>, ask: &proc_macro2::Ident) -> TokenStream {
    let mut path: Vec<TokenTree> = vec![TokenTree::Ident(ask.clone())];
    loop {
        let n = out.len();
        let is_colons = n >= 2
            && matches!((&out[n - 2], &out[n - 1]), (TokenTree::Punct(a), TokenTree::Punct(b))
                if a.as_char() == ':' && a.spacing() == proc_macro2::Spacing::Joint && b.as_char() == ':');
        if !is_colons {
            break;
        }
        let colons: Vec<TokenTree> = out.drain(n - 2..).collect();
        path.splice(0..0, colons);
        // `return ::mrtr::ask!(..)`: a keyword before `::` is not a segment.
        match out.last() {
            Some(TokenTree::Ident(segment)) if is_segment(segment) => {
                let segment = out.pop().expect("just matched");
                path.insert(0, segment);
            }
            _ => break,
        }
    }
    path.into_iter().collect()
}

fn is_segment(ident: &proc_macro2::Ident) -> bool {
    matches!(
        ident.to_string().as_str(),
        "crate" | "self" | "super" | "Self"
    ) || syn::parse2::<syn::Ident>(ident.to_token_stream()).is_ok()
}

/// The same paths the lowering treats as `ask!`: `ask` alone or one starting at `mrtr`.
fn is_mrtr_path(path: &TokenStream) -> bool {
    let idents: Vec<String> = path
        .clone()
        .into_iter()
        .filter_map(|t| match t {
            TokenTree::Ident(i) => Some(i.to_string()),
            _ => None,
        })
        .collect();
    idents.len() == 1 || idents.first().is_some_and(|first| first == "mrtr")
}

/// Whether the tokens in `out` end where a statement of a block begins.
fn starts_statement(out: &[TokenTree]) -> bool {
    match out {
        [] => true,
        [.., TokenTree::Punct(p)] => p.as_char() == ';',
        [.., TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => true,
        // An attribute before the statement: `#[allow(..)] ask!(..);`, or the block's `#![..]`.
        [.., TokenTree::Punct(hash), TokenTree::Group(g)] if hash.as_char() == '#' => {
            g.delimiter() == Delimiter::Bracket
        }
        [
            ..,
            TokenTree::Punct(hash),
            TokenTree::Punct(bang),
            TokenTree::Group(g),
        ] => hash.as_char() == '#' && bang.as_char() == '!' && g.delimiter() == Delimiter::Bracket,
        _ => false,
    }
}

/// The request expressions of `key: request, ..`, or `None` if they cannot be read. A malformed
/// key already has its own error, so anything before the `:` is accepted as the key here.
fn requests(args: TokenStream) -> Option<Vec<syn::Expr>> {
    let parser = |input: ParseStream| {
        let mut requests = Vec::new();
        while !input.is_empty() {
            while !at_key_separator(input) {
                if input.is_empty() || input.peek(Token![,]) {
                    return Err(input.error("expected `key: request`"));
                }
                if input.peek(Token![::]) {
                    input.parse::<Token![::]>()?;
                } else {
                    input.parse::<TokenTree>()?;
                }
            }
            input.parse::<Token![:]>()?;
            requests.push(input.parse::<syn::Expr>()?);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(requests)
    };
    parser.parse2(args).ok().filter(|r| !r.is_empty())
}

/// A lone `:`; syn's `:` peek also matches the first half of `::`.
fn at_key_separator(input: ParseStream) -> bool {
    input.peek(Token![:]) && !input.peek(Token![::])
}

#[cfg(test)]
mod tests {
    use super::replace_asks;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn replaced(body: TokenStream) -> String {
        replace_asks(body).tokens.to_string()
    }

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    const UNLOWERED: &str = ":: mrtr :: __private_v0_1_0 :: unlowered";

    #[test]
    fn fallback_keeps_the_original_statements_next_to_the_error() {
        let plan = quote!(let plan = build_deploy_plan(&args.service).await?;);
        let check = quote!(if !first.is_accept() {
            return Ok(declined());
        });
        let tail = quote!(Ok(deployed(plan.id)));
        let out = crate::tool::expand(
            TokenStream::new(),
            quote! {
                #[tool(description = "Deploy")]
                async fn deploy(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {
                    #plan
                    let first = ask!(confirm: elicit_url(args.service.clone(), "https://a"));
                    #check
                    let second = ask!(confirm: elicit_url(args.service, "https://b"));
                    #tail
                }
            },
        )
        .to_string();
        assert_eq!(count(&out, "compile_error"), 1, "{out}");
        assert!(out.contains("already used by another `ask!`"), "{out}");
        for statement in [plan, check, tail] {
            assert!(
                out.contains(&statement.to_string()),
                "{statement} missing from {out}"
            );
        }
        assert!(out.contains("# [tool (description = \"Deploy\")]"), "{out}");
        assert!(out.contains("async fn deploy (& self"), "{out}");
        assert_eq!(count(&out, UNLOWERED), 2, "{out}");
        assert!(!out.contains("unimplemented"), "{out}");
        assert!(!out.contains("unreachable_code"), "{out}");
    }

    #[test]
    fn an_item_that_is_not_a_method_is_emitted_as_given() {
        let item = quote!(
            struct NotAHandler {
                field: u8,
            }
        );
        let out = crate::tool::expand(TokenStream::new(), item.clone()).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.ends_with(&item.to_string()), "{out}");
    }

    #[test]
    fn every_ask_is_replaced_at_any_depth() {
        let out = replaced(quote!({
            let each = |s: &str| ask!(each: elicit_url(s, "u"));
            let later = async { ask!(later: elicit_url("m", "u")) };
            fn helper() {
                let _ = ask!(inner: elicit_url("m", "u"));
            }
            let line = format!("{:?}", ask!(open: elicit_url("m", "u")));
            let nested = ask!(outer: pick(ask!(inner2: roots())));
        }));
        assert_eq!(count(&out, UNLOWERED), 6, "{out}");
        // What remains of `ask!` is only the marker that keeps `use mrtr::ask` used.
        assert_eq!(count(&out, "ask !"), 6, "{out}");
        assert_eq!(count(&out, "ask ! (@ lowered) ;"), 6, "{out}");
        assert!(out.contains("let each = | s : & str |"), "{out}");
        assert!(out.contains("format ! (\"{:?}\" ,"), "{out}");
    }

    #[test]
    fn each_request_is_kept_with_the_request_builders_in_scope() {
        let out = replaced(quote!({
            let t = ask!(target: elicit::<Target>(format!("{x}")));
        }));
        assert!(
            out.contains("use :: mrtr :: __private_v0_1_0 :: requests :: * ;"),
            "{out}"
        );
        assert!(
            out.contains("elicit :: < Target > (format ! (\"{x}\"))"),
            "{out}"
        );
    }

    #[test]
    fn an_ask_of_several_keys_becomes_a_tuple_of_answers() {
        let out = replaced(quote!({
            let (a, b) = ask!(a: roots(), b: elicit::<HashMap<K, V>>("m"),);
        }));
        assert_eq!(count(&out, UNLOWERED), 2, "{out}");
        assert!(out.contains("let (a , b) = (:: mrtr"), "{out}");
        assert_eq!(count(&out, "@ lowered"), 1, "{out}");
    }

    #[test]
    fn a_discarded_answer_is_bound_so_that_must_use_stays_quiet() {
        let out = replaced(quote!(
            {
                #![allow(unused)]
                ask!(notice: roots());
                #[allow(unused)]
                ask!(other: roots());
                ask! { braced: roots() }
                done()
            }
        ));
        assert_eq!(count(&out, "let _ = :: mrtr"), 3, "{out}");
        assert!(out.contains("] let _ = :: mrtr"), "{out}");
        assert!(out.contains("; let _ = :: mrtr"), "{out}");
        assert!(out.contains(") ; done ()"), "{out}");
    }

    #[test]
    fn an_answer_that_is_used_stays_an_expression() {
        let out = replaced(quote!({
            ask!(k: roots()).is_accept();
            let ok = ask!(j: roots()).is_accept();
            match x {
                _ => ask!(m: roots()),
            }
            ask!(last: roots())
        }));
        assert!(!out.contains("let _"), "{out}");
        assert!(
            out.starts_with("{ :: mrtr :: __private_v0_1_0 :: unlowered"),
            "{out}"
        );
        assert!(out.contains(". is_accept () ;"), "{out}");
    }

    #[test]
    fn the_path_before_ask_is_part_of_the_invocation() {
        let out = replaced(quote!({
            let a = mrtr::ask!(a: roots());
            let b = ::mrtr::prelude::ask!(b: roots());
            return ::mrtr::ask!(c: roots());
        }));
        assert_eq!(count(&out, UNLOWERED), 3, "{out}");
        assert!(out.contains("mrtr :: ask ! (@ lowered)"), "{out}");
        assert!(
            out.contains(":: mrtr :: prelude :: ask ! (@ lowered)"),
            "{out}"
        );
        assert!(out.contains("return :: mrtr :: __private_v0_1_0"), "{out}");
        assert!(out.contains("{ # [allow (unused_imports)] use :: mrtr :: __private_v0_1_0 :: requests :: * ; :: mrtr :: ask ! (@ lowered) ;"), "{out}");
    }

    #[test]
    fn a_foreign_macro_ending_in_ask_gets_no_lowered_marker() {
        let out = replaced(quote!({
            let a = other::ask!(a: roots());
        }));
        assert_eq!(count(&out, UNLOWERED), 1, "{out}");
        assert!(!out.contains("@ lowered"), "{out}");
        assert!(!out.contains("other"), "{out}");
    }

    #[test]
    fn a_malformed_key_still_keeps_the_request() {
        let replaced = replace_asks(quote!({
            let a = ask!("confirm": elicit_url(s, "u"));
        }));
        assert!(!replaced.diverges);
        assert!(
            replaced
                .tokens
                .to_string()
                .contains("elicit_url (s , \"u\")")
        );
    }

    #[test]
    fn an_unreadable_ask_diverges() {
        for body in [
            quote!({
                let a = ask!();
            }),
            quote!({
                let a = ask!(confirm elicit_url(s, "u"));
            }),
            quote!({
                let a = ask!(confirm: );
            }),
        ] {
            let replaced = replace_asks(body);
            let out = replaced.tokens.to_string();
            assert!(replaced.diverges, "{out}");
            assert!(
                out.contains("({ ask ! (@ lowered) ; :: core :: unreachable ! () })"),
                "{out}"
            );
            assert!(!out.contains(UNLOWERED), "{out}");
        }
    }

    #[test]
    fn a_body_without_ask_is_returned_unchanged() {
        let body = quote!({
            let ask = 1;
            let x = masked!(ask);
            macro_rules! ask {
                () => {};
            }
            x + ask
        });
        let replaced = replace_asks(body.clone());
        assert!(!replaced.diverges);
        assert_eq!(replaced.tokens.to_string(), body.to_string());
    }
}
