//! Analysis and lowering behind `#[mrtr_tool]`, and the `Elicit` derive.
//!
//! A normal library crate so that every stage can be unit- and snapshot-tested with
//! `proc_macro2`.

mod elicit;
mod errors;
mod tool;

use proc_macro2::TokenStream;

pub use tool::StepCarry;

/// `#[mrtr_tool]` on an async handler.
pub fn mrtr_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args, item)
}

/// `#[mrtr_helper]` on an async helper that handlers enter with `ask!(site: helper(..).await)`.
pub fn mrtr_helper(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand_helper(args, item)
}

/// `#[derive(Elicit)]`.
pub fn derive_elicit(item: TokenStream) -> TokenStream {
    elicit::derive(item)
}

/// For tests: the resume steps of a handler as `(step, keys, carried locals)`, or the error
/// messages the attribute would report.
#[doc(hidden)]
pub fn carried_sets(item: TokenStream) -> Result<Vec<StepCarry>, Vec<String>> {
    tool::carried_sets(item)
}

/// The path generated code reaches the `mrtr` runtime through: private, and named after the
/// runtime's version, so a macro crate paired with another version of `mrtr` fails to compile
/// at this path instead of deep inside generated code.
pub(crate) fn runtime() -> TokenStream {
    runtime_at(proc_macro2::Span::call_site())
}

/// [`runtime`] with every token at `span`, so that an error in a runtime call made for the
/// user's token (a local that cannot be carried, a value that is not `Send`) is reported there.
pub(crate) fn runtime_at(span: proc_macro2::Span) -> TokenStream {
    let private = proc_macro2::Ident::new(&private_module(), span);
    quote::quote_spanned!(span=> ::mrtr::#private)
}

/// `__private_v0_1_0` for version 0.1.0: the runtime names its module the same way from the same
/// workspace version (a unit test in `mrtr` checks its side).
fn private_module() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let release = version.split(['-', '+']).next().unwrap_or(version);
    format!("__private_v{}", release.replace('.', "_"))
}
