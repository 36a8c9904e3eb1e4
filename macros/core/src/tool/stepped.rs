//! Whether a handler lowers into a step function (`mrtr`'s `steps`, driven by `respond_steps`)
//! instead of an `async fn`.
//!
//! A body whose only waits are its `ask!` sites (a legacy client's answer, a helper's machine)
//! needs no coroutine of its own: the runtime's driver awaits each wait between two calls of a
//! plain closure over the body's slots. A coroutine per handler is most of what a ported handler
//! costs to build beyond the one it replaces, so every handler that can do without one does.
//! A body with an `.await` of its own (outside `ask!`, outside an `async` block it builds) keeps
//! the `async fn`, as does a `local` handler (the driver's future is `Send`) and a helper (its
//! callers await it).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;

use super::ir::Body;
use super::params::BORROWING_MACROS;
use super::parse::{Handler, Kind};

pub fn stepped(handler: &Handler<'_>, body: &Body) -> bool {
    !matches!(handler.kind, Kind::Helper)
        && !handler.local
        && !body.sites.is_empty()
        && !awaits(handler.method.block.to_token_stream())
}

/// Macros known not to await beyond the formatting and assertion macros that only borrow their
/// arguments (`params::BORROWING_MACROS`, which await nothing either); the input of each is read
/// like the body's own tokens. Any other macro (`tokio::select!`, `join!`, a user's own) may
/// expand to an `.await` and keeps the `async fn`.
const OTHER_PLAIN_MACROS: &[&str] = &[
    "bail",
    "concat",
    "dbg",
    "ensure",
    "json",
    "matches",
    "stringify",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
];

fn plain_macro(name: &proc_macro2::Ident) -> bool {
    BORROWING_MACROS
        .iter()
        .chain(OTHER_PLAIN_MACROS)
        .any(|m| name == m)
}

/// Keywords a `!` can follow without making a macro call (`if !(..)`, `return !x`).
const KEYWORDS: &[&str] = &[
    "as", "break", "else", "for", "if", "in", "let", "loop", "match", "move", "mut", "ref",
    "return", "where", "while", "yield",
];

/// Whether `tokens` await anything outside `ask!(..)` and outside `async` blocks, read token
/// by token: an `.await` inside another macro's input counts, and so does any macro not known
/// to be plain, since what it expands to is unknown here.
fn awaits(tokens: TokenStream) -> bool {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let ident_at =
        |i: usize, name: &str| matches!(tokens.get(i), Some(TokenTree::Ident(id)) if id == name);
    let punct_at =
        |i: usize, c: char| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '.' && ident_at(i + 1, "await") => return true,
            TokenTree::Ident(id)
                if punct_at(i + 1, '!')
                    && matches!(tokens.get(i + 2), Some(TokenTree::Group(_)))
                    && !KEYWORDS.iter().any(|k| id == k) =>
            {
                if id == "ask" {
                    i += 3;
                    continue;
                }
                if !plain_macro(id) {
                    return true;
                }
            }
            TokenTree::Ident(id) if id == "async" => {
                // `async { .. }` / `async move { .. }`: a future the body builds, awaited by
                // whoever takes it. An `async` closure is counted like any other token.
                let block = if ident_at(i + 1, "move") {
                    i + 2
                } else {
                    i + 1
                };
                if matches!(tokens.get(block), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
                {
                    i = block + 1;
                    continue;
                }
            }
            TokenTree::Group(group) if awaits(group.stream()) => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::awaits;
    use quote::quote;

    #[test]
    fn only_an_await_outside_asks_and_async_blocks_counts() {
        assert!(!awaits(quote!({
            let a = ask!(k: elicit::<T>("m"));
            let b = ask!(gate: confirm(&x).await);
            let f = async move { g().await };
            a
        })));
        assert!(awaits(quote!({
            let p = plan().await?;
            p
        })));
        assert!(awaits(quote!({
            if x {
                y.send(1).await;
            }
        })));
        assert!(!awaits(quote!({
            let s = format!("{}", x);
            if !(s.is_empty()) {
                return s;
            }
            s
        })));
        assert!(awaits(quote!({
            let s = format!("{}", x.await);
            s
        })));
        assert!(awaits(quote!({
            tokio::select! { v = rx.recv() => v, _ = t => () }
        })));
        assert!(awaits(quote!({
            futures::join!(a, b);
        })));
        assert!(awaits(quote!({
            let f = async |x| h(x).await;
        })));
    }
}
