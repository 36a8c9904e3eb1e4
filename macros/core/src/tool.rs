//! `#[mrtr_tool]`. OWNER: helper C (may become a folder of modules).

use proc_macro2::TokenStream;

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let _ = args;
    item
}
