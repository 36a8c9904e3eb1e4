//! Diagnostics accumulated over one macro input and reported together, so that one compile shows
//! every mistake (serde_derive's `Ctxt`). Both macros, `#[mrtr_tool]` and `#[derive(Elicit)]`,
//! report through it.
//!
//! An accumulator must be finished: one dropped while it may still hold errors would swallow
//! them, so that is a bug in the macro and panics (outside an unwinding panic).

use std::fmt::Display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

pub struct Errors {
    /// `None` once finished.
    errors: Option<Vec<syn::Error>>,
}

impl Errors {
    pub fn new() -> Self {
        Errors {
            errors: Some(Vec::new()),
        }
    }

    fn list(&mut self) -> &mut Vec<syn::Error> {
        self.errors
            .as_mut()
            .expect("an error accumulator is used after it was finished")
    }

    /// An error spanned at `tokens`.
    pub fn at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.list().push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at_span(&mut self, span: Span, message: impl Display) {
        self.list().push(syn::Error::new(span, message));
    }

    pub fn push(&mut self, error: syn::Error) {
        self.list().push(error);
    }

    /// Every error darling accumulated while reading an attribute.
    pub fn darling(&mut self, error: darling::Error) {
        self.push(error.into());
    }

    /// The value of a darling parse, its errors moved here; `None` when it failed.
    pub fn take<T>(&mut self, parsed: darling::Result<T>) -> Option<T> {
        parsed.map_err(|e| self.darling(e)).ok()
    }

    pub fn is_empty(&self) -> bool {
        self.errors.as_ref().is_none_or(Vec::is_empty)
    }

    /// Ends the accumulation: the errors, in the order they were found.
    pub fn finish(mut self) -> Vec<syn::Error> {
        self.errors.take().unwrap_or_default()
    }

    /// Ends the accumulation: `compile_error!`s for every error (empty when there are none).
    pub fn into_compile_errors(self) -> TokenStream {
        self.finish()
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}

impl Default for Errors {
    fn default() -> Self {
        Errors::new()
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.is_some() {
            panic!("mrtr macro bug: an error accumulator was dropped without being finished");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finishing_returns_every_error_in_order() {
        let mut errors = Errors::new();
        errors.at_span(Span::call_site(), "first");
        errors.at_span(Span::call_site(), "second");
        let messages: Vec<String> = errors.finish().iter().map(ToString::to_string).collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    #[should_panic(expected = "dropped without being finished")]
    fn an_unfinished_accumulator_is_a_bug() {
        let mut errors = Errors::new();
        errors.at_span(Span::call_site(), "lost");
    }
}
