//! `#[derive(Elicit)]`: a flat elicitation form from a struct, or a choice from a unit-only enum.
//!
//! Stages, one file each: `attr` reads `#[elicit(..)]`, `#[serde(..)]` and doc comments;
//! `ast` builds the IR and runs every check, accumulating errors; `expand` generates the impls;
//! `fallback` emits stub impls next to the errors so the user sees one precise message per
//! mistake instead of a cascade of unsatisfied-trait errors.

mod ast;
mod attr;
mod case;
mod expand;
mod fallback;

use proc_macro2::TokenStream;

pub fn derive(item: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let parsed = ast::Input::from_syn(&input, &mut errors);
    match (parsed, errors.finish()) {
        (Some(parsed), None) => expand::expand(&parsed),
        (_, Some(error)) => {
            let mut tokens = error.to_compile_error();
            tokens.extend(fallback::expand(&input));
            tokens
        }
        (None, None) => fallback::expand(&input),
    }
}

/// Errors accumulated over the whole input, so one compile reports every mistake.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub(crate) fn spanned(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    fn finish(self) -> Option<syn::Error> {
        self.0.into_iter().reduce(|mut all, next| {
            all.combine(next);
            all
        })
    }
}

#[cfg(test)]
mod tests;
