//! Analysis and lowering behind `#[mrtr_tool]`, and the `Elicit` derive.
//!
//! A normal library crate so that every stage can be unit- and snapshot-tested with
//! `proc_macro2`.

use proc_macro2::TokenStream;

/// `#[mrtr_tool]`: OWNER helper C.
pub fn mrtr_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let _ = args;
    item
}

/// `#[derive(Elicit)]`: OWNER helper B.
pub fn derive_elicit(item: TokenStream) -> TokenStream {
    let _ = item;
    TokenStream::new()
}
