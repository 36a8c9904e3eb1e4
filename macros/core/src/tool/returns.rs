//! How a lowered body hands back the value its user code returns: a handler's through the
//! runtime's `done::<R>` (its `Flow`), a helper's through the `Poll` of the shape its written
//! return type has, chosen so that `?` in the helper keeps meaning what it meant.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

pub enum Returns {
    /// A handler returning `R`: the body returns `Lifted<R>`.
    Handler(Box<Type>),
    /// A helper written `-> Result<T, ..>` (or an alias `Result<T>`): `Result<Poll<T>, ..>`.
    HelperResult,
    /// A helper written `-> Option<T>`: `Option<Poll<T>>`.
    HelperOption,
    /// Any other helper: `Poll<R>`; `?` has nothing to convert into.
    HelperPlain,
}

impl Returns {
    /// The shape of a helper's written return type.
    pub fn of_helper(ret: &Type) -> Self {
        match first_argument(ret) {
            Some(("Result", _)) => Returns::HelperResult,
            Some(("Option", _)) => Returns::HelperOption,
            _ => Returns::HelperPlain,
        }
    }

    /// `return value` out of the lowered body.
    pub fn done(&self, value: TokenStream) -> TokenStream {
        let rt = crate::runtime();
        match self {
            Returns::Handler(ret) => quote!(#rt::done::<#ret>(#value)),
            Returns::HelperResult => quote!(#rt::finish_result(#value)),
            Returns::HelperOption => quote!(#rt::finish_option(#value)),
            Returns::HelperPlain => quote!(#rt::finish(#value)),
        }
    }

    /// A helper's suspension (a `Poll`) as the lowered body's return value.
    pub fn suspended(&self, poll: TokenStream) -> TokenStream {
        match self {
            Returns::HelperResult | Returns::Handler(_) => {
                quote!(::core::result::Result::Ok(#poll))
            }
            Returns::HelperOption => quote!(::core::option::Option::Some(#poll)),
            Returns::HelperPlain => poll,
        }
    }

    /// The type the lowered body returns, for a helper whose written return type is `ret`.
    pub fn lowered_helper(&self, ret: &Type) -> Type {
        let rt = crate::runtime();
        match self {
            Returns::Handler(ret) => syn::parse_quote!(#rt::Lifted<#ret>),
            Returns::HelperPlain => syn::parse_quote!(#rt::Poll<#ret>),
            Returns::HelperResult | Returns::HelperOption => {
                let mut lowered = ret.clone();
                if let Some(first) = first_argument_mut(&mut lowered) {
                    let inner = first.clone();
                    *first = syn::parse_quote!(#rt::Poll<#inner>);
                }
                lowered
            }
        }
    }
}

/// `Result` / `Option` and the first type argument of `ret`'s last path segment.
fn first_argument(ret: &Type) -> Option<(&'static str, &Type)> {
    let Type::Path(path) = ret else { return None };
    let last = path.path.segments.last()?;
    let name = match last.ident.to_string().as_str() {
        "Result" => "Result",
        "Option" => "Option",
        _ => return None,
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some((name, t)),
        _ => None,
    })
}

fn first_argument_mut(ret: &mut Type) -> Option<&mut Type> {
    let Type::Path(path) = ret else { return None };
    let last = path.path.segments.last_mut()?;
    let PathArguments::AngleBracketed(args) = &mut last.arguments else {
        return None;
    };
    args.args.iter_mut().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}
