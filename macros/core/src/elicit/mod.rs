//! `#[derive(Elicit)]`: a flat elicitation form from a struct, or a choice from a unit-only enum.
//!
//! Stages, one file each: `attr` reads `#[elicit(..)]` and doc comments, `serde_attrs` reads
//! serde's attributes with serde's own parser; `ast` builds the IR and runs every check,
//! accumulating errors; `expand` generates the impls;
//! `fallback` emits stub impls next to the errors so the user sees one precise message per
//! mistake instead of a cascade of unsatisfied-trait errors.

mod ast;
mod attr;
mod expand;
mod fallback;
mod serde_attrs;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub fn derive(item: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::new();
    let parsed = ast::Input::from_syn(&input, &mut errors);
    match parsed {
        Some(parsed) if errors.is_empty() => {
            errors.finish();
            expand::expand(&parsed)
        }
        _ => {
            let mut tokens = errors.into_compile_errors();
            tokens.extend(fallback::expand(&input));
            tokens
        }
    }
}

#[cfg(test)]
mod tests;
