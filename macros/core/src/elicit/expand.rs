//! Code generation from the checked IR. Generated code names the runtime only through
//! the runtime's private path (`crate::runtime`), and every type-dependent check is emitted under the span
//! of the user's token it concerns, so rustc's error lands there.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::LitStr;
use syn::spanned::Spanned;

use super::ast::{Choice, Field, Form, Input};
use super::attr::{DefaultValue, Keyed};

pub(crate) fn support() -> TokenStream {
    let rt = crate::runtime();
    quote!(#rt::derive_elicit)
}

pub(crate) fn expand(input: &Input) -> TokenStream {
    match input {
        Input::Form(form) => expand_form(form),
        Input::Choice(choice) => expand_choice(choice),
    }
}

fn expand_form(form: &Form) -> TokenStream {
    let support = support();
    let ident = form.ident;
    let fields = form.fields.iter().map(property);
    let checks: Vec<TokenStream> = form.fields.iter().flat_map(checks).collect();
    let choice_asserts: Vec<TokenStream> = form.fields.iter().flat_map(choice_asserts).collect();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #support::Elicit for #ident {
                fn requested_schema() -> #support::Json {
                    #support::Form::new()
                        #(#fields)*
                        .finish()
                }

                fn __known_form() -> ::core::option::Option<&'static #support::KnownForm> {
                    #support::KnownForm::of(<Self as #support::Elicit>::requested_schema)
                }
            }

            // Every instance of this build then knows the schema, so a continuation names it
            // instead of carrying it.
            #support::submit! {
                #support::RegisteredForm {
                    schema: <#ident as #support::Elicit>::requested_schema,
                }
            }

            // Attribute/type agreement, checked by the marker traits' bounds; never called.
            #[allow(dead_code)]
            fn __mrtr_elicit_checks() {
                #(#checks)*
            }

            #(#choice_asserts)*
        };
    }
}

/// `.field("name", Property::of::<T>().with(..).., required)`.
fn property(field: &Field) -> TokenStream {
    let support = support();
    let ty = field.ty;
    let name = &field.name;
    let mut property = quote_spanned!(ty.span()=> #support::Property::of::<#ty>());
    let mut with = |keyword: &str, value: TokenStream| {
        property = quote!(#property.with(#keyword, #value));
    };
    let attrs = &field.attrs;
    if let Some(title) = &attrs.title {
        with("title", title.value.to_token_stream());
    }
    if let Some(description) = &field.description {
        with(
            "description",
            LitStr::new(description, Span::call_site()).to_token_stream(),
        );
    }
    if let Some(format) = &attrs.format {
        with("format", format.value.0.to_token_stream());
    }
    for (keyword, bound) in [("minimum", &attrs.min), ("maximum", &attrs.max)] {
        if let Some(bound) = bound {
            let json = &bound.value.json;
            with(keyword, quote!(#support::Json::from(#json)));
        }
    }
    for (keyword, count) in [
        ("minLength", &attrs.min_length),
        ("maxLength", &attrs.max_length),
        ("minItems", &attrs.min_items),
        ("maxItems", &attrs.max_items),
    ] {
        if let Some(count) = count {
            let value = count.value;
            with(keyword, quote!(#value));
        }
    }
    if let Some(default) = &attrs.default {
        let value = match &default.value {
            DefaultValue::Str(text) => quote!(#text),
            DefaultValue::Bool(flag) => quote!(#flag),
            DefaultValue::Number(number) => {
                let json = &number.json;
                quote!(#support::Json::from(#json))
            }
            DefaultValue::List(items) => {
                quote!(#support::Json::Array(::std::vec![#(#support::Json::from(#items)),*]))
            }
        };
        with("default", value);
    }
    let required = if field.optional_on_wire {
        quote!(false)
    } else {
        quote_spanned!(ty.span()=> <#ty as #support::ElicitField>::REQUIRED)
    };
    quote!(.field(#name, #property, #required))
}

/// Calls to the marker-trait functions, one per attribute that needs a kind of field.
fn checks(field: &Field) -> Vec<TokenStream> {
    let ty = field.ty;
    let attrs = &field.attrs;
    let mut out = Vec::new();
    let mut require = |key: &syn::Path, check: &str| {
        let support = support();
        let check = syn::Ident::new(check, key.span());
        out.push(quote_spanned!(key.span()=> #support::#check::<#ty>();));
    };
    for key in [
        &attrs.format.as_ref().map(|k| &k.key),
        &attrs.min_length.as_ref().map(|k| &k.key),
        &attrs.max_length.as_ref().map(|k| &k.key),
    ]
    .into_iter()
    .flatten()
    {
        require(key, "text");
    }
    for bound in [&attrs.min, &attrs.max].into_iter().flatten() {
        require(
            &bound.key,
            if bound.value.fractional {
                "float"
            } else {
                "number"
            },
        );
    }
    for key in [&attrs.min_items, &attrs.max_items]
        .into_iter()
        .flatten()
        .map(|k| &k.key)
    {
        require(key, "multi_select_field");
    }
    if let Some(Keyed { key, value }) = &attrs.default {
        let check = match value {
            DefaultValue::Str(_) => "str_default",
            DefaultValue::Bool(_) => "boolean",
            DefaultValue::Number(number) if number.fractional => "float",
            DefaultValue::Number(_) => "number",
            DefaultValue::List(_) => "multi_select_field",
        };
        require(key, check);
    }
    out
}

/// `const` assertions that a choice field's default names one of its values.
fn choice_asserts(field: &Field) -> Vec<TokenStream> {
    let ty = field.ty;
    let values: Vec<&LitStr> = match field.attrs.default.as_ref().map(|d| &d.value) {
        Some(DefaultValue::Str(text)) => vec![text],
        Some(DefaultValue::List(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    values
        .into_iter()
        .map(|value| {
            // Every token of the call carries the literal's span, so the const-evaluation
            // error points at the default the user wrote rather than at the derive.
            let rt = crate::runtime_at(value.span());
            let support = quote_spanned!(value.span()=> #rt::derive_elicit);
            quote_spanned! {value.span()=>
                const _: () = #support::assert_choice(
                    <#ty as #support::ElicitField>::CHOICES,
                    #value,
                );
            }
        })
        .collect()
}

fn expand_choice(choice: &Choice) -> TokenStream {
    let support = support();
    let ident = choice.ident;
    let entries = choice.variants.iter().map(|variant| {
        let value = &variant.value;
        let title = match &variant.title {
            Some(title) => quote!(::core::option::Option::Some(#title)),
            None => quote!(::core::option::Option::None),
        };
        quote!(#support::Choice { value: #value, title: #title })
    });
    let legacy = choice.legacy_enum_names;
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #support::ElicitChoice for #ident {
                const CHOICES: &'static [#support::Choice] = &[#(#entries),*];
                const LEGACY_ENUM_NAMES: bool = #legacy;
            }
            #[automatically_derived]
            impl #support::ElicitField for #ident {
                const CHOICES: &'static [#support::Choice] = <Self as #support::ElicitChoice>::CHOICES;
                fn schema() -> #support::Schema {
                    #support::single_select(
                        <Self as #support::ElicitChoice>::CHOICES,
                        <Self as #support::ElicitChoice>::LEGACY_ENUM_NAMES,
                    )
                }
            }
            #[automatically_derived]
            impl #support::StrDefaultField for #ident {}
        };
    }
}
