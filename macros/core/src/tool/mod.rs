//! `#[mrtr_tool]`: an async handler with `ask!` points, lowered into a resumable state machine.
//!
//! The pipeline, one stage per file: [`parse`] (the attribute and the handler's shape) → [`ir`]
//! (the body as frames, sites and constructs) → [`liveness`] → [`validate`] (every semantic
//! check, errors accumulated) → [`plan`] (arms and slots) → [`codegen`] (the lowered body) →
//! [`interface`] (the items rmcp and rustdoc see) — or, when anything was reported,
//! [`fallback`] (the method as written, so the rest of the user's code is still checked).
//! `ARCHITECTURE.md` at the repository root walks through the stages.
//!
//! This file holds only the entry points: on a method, and on a whole impl (which lowers its
//! marked methods itself and adds each handler's step enum beside the impl).

mod ask;
mod codegen;
mod fallback;
mod helper;
mod interface;
mod ir;
mod liveness;
mod misplaced;
mod params;
mod parse;
mod patterns;
mod plan;
mod returns;
mod rewrite;
mod step_enum;
mod stepped;
mod syntax;
mod uses;
mod validate;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{ImplItem, ImplItemFn, ItemImpl, Pat};

use crate::errors::Errors;

/// `#[mrtr_tool]` on a method, or on the impl that holds the marked methods.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse2::<ItemImpl>(item.clone()) {
        Ok(item) => expand_impl(args, item),
        Err(_) => expand_method(args, item),
    }
}

/// `#[mrtr_helper]` on an `async fn`.
pub fn expand_helper(args: TokenStream, item: TokenStream) -> TokenStream {
    helper::expand(args, item)
}

/// On a method: the lowered impl items (the handler's steps as an associated const).
fn expand_method(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse2::<ImplItemFn>(item.clone()) {
        Ok(method) => {
            let Lowered {
                registered, beside, ..
            } = lower(args, &method, None);
            quote!(#registered #beside)
        }
        Err(e) => {
            let error = syn::Error::new(
                e.span(),
                "`#[mrtr_tool]` goes on an `async fn` handler inside a `#[tool_router]` impl (or on the impl itself, for the handlers' step enums)",
            )
            .to_compile_error();
            quote!(#error #item)
        }
    }
}

/// On an impl: each method marked `#[mrtr_tool]` is lowered here, once (its own attribute taken
/// off so that nothing is analysed twice), and each handler's step enum is emitted beside the
/// impl, where rustdoc shows it: an attribute on a method can only emit impl items, and an
/// enum is not one. Only the registered methods stay in the impl; the machines' bodies and step
/// tables go to a second impl of the same type, which `#[tool_router]` (the next attribute)
/// never sees: it parses and prints again every item of the impl it is on, and the lowered
/// bodies are most of the tokens.
fn expand_impl(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    if !args.is_empty() {
        let error = syn::Error::new_spanned(
            &args,
            "`#[mrtr_tool]` on an impl takes no arguments; put `resource` on the method it applies to",
        )
        .to_compile_error();
        return quote!(#error #item);
    }
    let self_ty = (*item.self_ty).clone();
    let impl_of = step_enum::ImplOf {
        self_ty: &self_ty,
        generic: !item.generics.params.is_empty(),
    };
    let mut enums = Vec::new();
    let mut beside = Vec::new();
    for member in &mut item.items {
        let ImplItem::Fn(method) = member else {
            continue;
        };
        let Some(args) = take_attribute(method) else {
            continue;
        };
        let lowered = lower(args, method, Some(impl_of));
        enums.extend(lowered.step_enum);
        let registered = lowered.registered;
        if item.trait_.is_some() {
            // A trait's impl holds only the trait's items: everything stays where it was
            // written, and the compiler names what does not belong.
            let machine = lowered.beside;
            *member = ImplItem::Verbatim(quote!(#registered #machine));
        } else {
            beside.push(lowered.beside);
            *member = ImplItem::Verbatim(registered);
        }
    }
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    // The same `cfg` and lint levels as the impl the bodies came from.
    let kept = item.attrs.iter().filter(|attr| {
        ["cfg", "allow", "expect", "warn", "deny"]
            .iter()
            .any(|name| attr.path().is_ident(name))
    });
    let machines = (!beside.is_empty()).then(|| {
        quote! {
            #(#kept)*
            impl #impl_generics #self_ty #where_clause {
                #(#beside)*
            }
        }
    });
    let mut out = item.to_token_stream();
    out.extend(machines);
    out.extend(enums);
    out
}

/// Takes the method's `#[mrtr_tool(..)]` off and returns its arguments; `None` when unmarked.
fn take_attribute(method: &mut ImplItemFn) -> Option<TokenStream> {
    let index = method.attrs.iter().position(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "mrtr_tool")
    })?;
    let attr = method.attrs.remove(index);
    Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    })
}

/// What lowering one method gives: the method rmcp registers (or, after an error, the method
/// as written with the errors), the items that go beside it, and its step enum when asked for.
struct Lowered {
    registered: TokenStream,
    beside: TokenStream,
    step_enum: Option<TokenStream>,
}

/// The whole pipeline for one method: the lowered impl items and, inside an impl that asks for
/// it, the step enum; or, when anything was reported, the errors next to the method as written.
fn lower(
    args: TokenStream,
    method: &ImplItemFn,
    impl_of: Option<step_enum::ImplOf<'_>>,
) -> Lowered {
    let mut errors = Errors::new();
    let handler = parse::handler(args, method, &mut errors);
    let analysed = handler
        .as_ref()
        .map(|handler| analyse(handler.method, &handler.returns, &mut errors));
    let (Some(handler), Some(body), true) = (handler, analysed, errors.is_empty()) else {
        return Lowered {
            registered: fallback::method(method, errors),
            beside: TokenStream::new(),
            step_enum: None,
        };
    };
    errors.finish();
    let plan = plan::plan(&body, &handler);
    let machine = codegen::Gen::new(&body, &plan, &handler);
    let step_enum = impl_of.and_then(|impl_of| step_enum::step_enum(&machine, impl_of));
    let (registered, beside) = interface::emit(&handler, &machine);
    Lowered {
        registered,
        beside,
        step_enum,
    }
}

/// Stages 2–4: the body's IR, its live sets, and every check on them.
fn analyse(method: &ImplItemFn, returns: &returns::Returns, errors: &mut Errors) -> ir::Body {
    let params: Vec<&Pat> = parse::typed_params(method).map(|t| &*t.pat).collect();
    let mut body = ir::build(&params, &method.block, returns, errors);
    liveness::analyse(&mut body);
    validate::check(&body, &method.sig.ident, errors);
    body
}

/// One resume step for tests: `(step, keys, carried wire names)`.
pub type StepCarry = (String, Vec<String>, Vec<String>);

/// Carried sets per step, for tests: `(step, keys, carried wire names)`, or every error the
/// analysis reported.
pub fn carried_sets(item: TokenStream) -> Result<Vec<StepCarry>, Vec<String>> {
    let method: ImplItemFn = syn::parse2(item).map_err(|e| vec![e.to_string()])?;
    let mut errors = Errors::new();
    let ret = match &method.sig.output {
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
        syn::ReturnType::Default => syn::parse_quote!(()),
    };
    let body = analyse(
        &method,
        &returns::Returns::Handler(Box::new(ret)),
        &mut errors,
    );
    let errors = errors.finish();
    if !errors.is_empty() {
        return Err(errors.iter().map(ToString::to_string).collect());
    }
    Ok(body
        .sites
        .iter()
        .map(|s| {
            let keys = s.keys.iter().map(|k| k.key.to_string()).collect();
            let carried = body
                .carried_at(s)
                .map(|b| body.bindings[b].wire.clone())
                .collect();
            (s.step.clone(), keys, carried)
        })
        .collect())
}
