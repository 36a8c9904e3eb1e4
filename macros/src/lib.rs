//! Entry points of `mrtr`'s macros; each one hands its tokens to `mrtr-macros-core`.

use proc_macro::TokenStream;

/// Lowers an async handler with `ask!` points into a resumable state machine.
#[proc_macro_attribute]
pub fn mrtr_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    mrtr_macros_core::mrtr_tool(args.into(), item.into()).into()
}

/// Lowers an async helper with `ask!` points into a machine its callers enter with
/// `ask!(site: helper(..).await)`.
#[proc_macro_attribute]
pub fn mrtr_helper(args: TokenStream, item: TokenStream) -> TokenStream {
    mrtr_macros_core::mrtr_helper(args.into(), item.into()).into()
}

/// Derives `mrtr::Elicit`: a flat elicitation form from a struct, or a single-select choice from
/// a unit-only enum.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(item: TokenStream) -> TokenStream {
    mrtr_macros_core::derive_elicit(item.into()).into()
}
