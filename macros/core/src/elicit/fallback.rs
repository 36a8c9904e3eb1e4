//! Stub impls emitted next to `compile_error!`: with them the type still implements what its
//! users expect, so the only errors are the derive's own, not a cascade at every use site.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput};

use super::expand::support;

pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    // A generic type would need bounds the derive cannot guess; leave it without impls.
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let support = support();
    let ident = &input.ident;
    match &input.data {
        Data::Struct(_) => quote! {
            const _: () = {
                impl #support::Elicit for #ident {
                    fn requested_schema() -> #support::Json {
                        ::core::unreachable!("`#[derive(Elicit)]` reported a compile error for this type")
                    }
                }
            };
        },
        Data::Enum(_) => quote! {
            const _: () = {
                impl #support::ElicitChoice for #ident {
                    const CHOICES: &'static [#support::Choice] = &[];
                }
                impl #support::ElicitField for #ident {
                    fn schema() -> #support::Schema {
                        ::core::unreachable!("`#[derive(Elicit)]` reported a compile error for this type")
                    }
                }
                impl #support::StrDefaultField for #ident {}
            };
        },
        Data::Union(_) => TokenStream::new(),
    }
}
