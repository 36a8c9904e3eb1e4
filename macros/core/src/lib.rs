//! Analysis and lowering behind `#[mrtr_tool]`, and the `Elicit` derive.
//!
//! A normal library crate so that every stage can be unit- and snapshot-tested with
//! `proc_macro2`.

mod elicit;
mod tool;

use proc_macro2::TokenStream;

/// `#[mrtr_tool]` on an async handler.
pub fn mrtr_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args, item)
}

/// `#[derive(Elicit)]`.
pub fn derive_elicit(item: TokenStream) -> TokenStream {
    elicit::derive(item)
}

/// For tests: the resume steps of a handler as `(step, keys, carried locals)`, or the error
/// messages the attribute would report.
#[doc(hidden)]
pub fn carried_sets(
    item: TokenStream,
) -> Result<Vec<(String, Vec<String>, Vec<String>)>, Vec<String>> {
    tool::carried_sets(item)
}
