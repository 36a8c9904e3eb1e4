//! `ask!` where the lowering cannot split the body: each case gets its own fix in the message.

use syn::visit::{self, Visit};

use super::ask::{is_ask, tokens_mention_ask};
use super::syntax::Syntax;
use crate::errors::Errors;

#[derive(Clone, Copy)]
enum Context {
    Plain,
    Closure,
    Async,
    Item,
}

struct Finder<'e> {
    errors: &'e mut Errors,
    context: Context,
    found: bool,
}

impl Finder<'_> {
    fn within(&mut self, context: Context, f: impl FnOnce(&mut Self)) {
        let saved = self.context;
        self.context = context;
        f(self);
        self.context = saved;
    }
}

const BIND_FIRST: &str = "`ask!` here comes after other code of its statement, and the lowering can only split a statement before the first thing it evaluates (`let x = ask!(..);`, `match ask!(..) { .. }`, `ask!(..)?`, `ask!(..).is_accept()`); bind the answer first: `let answer = ask!(key: ..);`, then use `answer`";

/// Racing an ask against cancellation is what each era already does on its own: a 2026-07-28
/// round that suspends just ends (the retry is a new request, cancelled on its own), and rmcp
/// drops a legacy handler's future, live ask included, when the client cancels the call.
const SELECT: &str = "`ask!` cannot be raced inside `select!`: write it on its own, `let answer = ask!(key: ..);`. A cancellation branch is not needed around it: on 2026-07-28 a round that asks simply ends and the retry is a new request with its own cancellation, and on a legacy session rmcp drops the handler, live ask included, when the client cancels; keep `select!` (or `context.ct.is_cancelled()`) around the slow work before or after the ask";

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if is_ask(mac) {
            self.found = true;
            let message = match self.context {
                Context::Closure => {
                    "`ask!` cannot be used inside a closure: the closure would have to suspend the tool call; call `ask!` outside it and pass the answer in"
                }
                Context::Async => {
                    "`ask!` cannot be used inside an `async` block: only the handler's own body can suspend; call `ask!` outside it and pass the answer in"
                }
                Context::Item => {
                    "`ask!` cannot be used inside a nested `fn` or `impl`: only the `#[mrtr_tool]` handler's own body can suspend"
                }
                Context::Plain => BIND_FIRST,
            };
            self.errors.at(mac, message);
        } else if let Some(span) = tokens_mention_ask(&mac.tokens) {
            self.found = true;
            let name = mac
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let message = if name == "select" {
                SELECT.to_owned()
            } else {
                format!(
                    "`ask!` inside `{name}!(..)` is invisible to `#[mrtr_tool]`; bind it first: `let answer = ask!(key: ..);`, then use `answer` in `{name}!`"
                )
            };
            self.errors.at_span(span, message);
        }
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        self.within(Context::Closure, |this| {
            visit::visit_expr_closure(this, node)
        });
    }

    fn visit_expr_async(&mut self, node: &'ast syn::ExprAsync) {
        self.within(Context::Async, |this| visit::visit_expr_async(this, node));
    }

    fn visit_item(&mut self, node: &'ast syn::Item) {
        self.within(Context::Item, |this| visit::visit_item(this, node));
    }
}

/// Reports every `ask!` inside `item` that the lowering cannot split there; whether any was found.
pub fn reject_misplaced(item: &impl Syntax, errors: &mut Errors) -> bool {
    let mut finder = Finder {
        errors,
        context: Context::Plain,
        found: false,
    };
    item.accept(&mut finder);
    finder.found
}
