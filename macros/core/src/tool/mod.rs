//! `#[mrtr_tool]`: parse → analyse (asks, frames, liveness, validation; errors accumulated) →
//! lower (arms, slots) → codegen.
//!
//! The attribute sits above rmcp's `#[tool(..)]`/`#[prompt(..)]` inside a `#[tool_router]` impl.
//! It emits three impl items: the thin method rmcp registers (same name, attributes and docs; a
//! plain `fn` that boxes the body and hands it to the runtime's response function), the hidden
//! lowered body, and an associated const listing the resume steps for rustdoc.

mod ask;
mod build;
mod codegen;
mod errors;
mod ir;
mod liveness;
mod lower;
mod misplaced;
mod params;
mod patterns;
mod placeholder;
mod rewrite;
mod steps;
mod uses;
mod validate;

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{FnArg, ImplItemFn, Pat, ReturnType, Type};

use errors::Errors;

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if let Ok(item) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return steps::expand(args, item);
    }
    let method: ImplItemFn = match syn::parse2(item.clone()) {
        Ok(method) => method,
        Err(e) => {
            let error = syn::Error::new(
                e.span(),
                "`#[mrtr_tool]` goes on an `async fn` handler inside a `#[tool_router]` impl (or on the impl itself, for the handlers' step enums)",
            );
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let resource = match parse_args(args) {
        Ok(resource) => resource,
        Err(e) => {
            errors.push(e);
            false
        }
    };
    match lower_method(&method, resource, &mut errors, None) {
        Some((tokens, _)) if errors.is_empty() => tokens,
        _ => fallback(&method, &errors),
    }
}

/// A `#[mrtr_tool]` method inside an impl that carries the attribute too (its own attribute
/// already taken off): lowered here, once, with its step enum for beside the impl.
fn expand_in_impl(
    args: TokenStream,
    method: &ImplItemFn,
    impl_of: steps::ImplOf<'_>,
) -> (TokenStream, Option<TokenStream>) {
    let mut errors = Errors::default();
    let resource = parse_args(args).unwrap_or_else(|e| {
        errors.push(e);
        false
    });
    match lower_method(method, resource, &mut errors, Some(impl_of)) {
        Some((tokens, step_enum)) if errors.is_empty() => (tokens, step_enum),
        _ => (fallback(method, &errors), None),
    }
}

/// On any error: the compile errors, plus the method as written (attributes, signature, body)
/// with each `ask!` replaced by an answer of its request's type, so the surrounding
/// `#[tool_router]` impl still type-checks, rustc and rust-analyzer keep checking the user's own
/// code, and the only `ask!`-related errors are ours (tokio-macros style).
fn fallback(method: &ImplItemFn, errors: &Errors) -> TokenStream {
    let compile_errors = errors.to_compile_errors();
    // Printed whole, the method ends with its body's group, inner attributes included.
    let mut head: Vec<proc_macro2::TokenTree> = method.to_token_stream().into_iter().collect();
    let body = placeholder::replace_asks(head.pop().into_iter().collect());
    let allow = body
        .diverges
        .then(|| quote!(#[allow(unreachable_code, unused_variables)]));
    let body = body.tokens;
    quote!(#compile_errors #allow #(#head)* #body)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Tool,
    Prompt,
    /// `#[mrtr_tool(resource)]`: rmcp has no resource router; the server's `read_resource`
    /// builds a `ResourceCall` and calls the method itself.
    Resource,
}

/// The attribute's arguments: nothing, or `resource`.
fn parse_args(args: TokenStream) -> syn::Result<bool> {
    if args.is_empty() {
        return Ok(false);
    }
    let ident: syn::Ident = syn::parse2(args.clone()).map_err(|_| {
        syn::Error::new_spanned(&args, "`#[mrtr_tool]` takes no arguments except `resource`; tool options go in the `#[tool(..)]` below it")
    })?;
    if ident == "resource" {
        Ok(true)
    } else {
        Err(syn::Error::new_spanned(
            ident,
            "`#[mrtr_tool]` takes no arguments except `resource`; tool options go in the `#[tool(..)]` below it",
        ))
    }
}

/// One resume step for tests: `(step, keys, carried wire names)`.
pub type StepCarry = (String, Vec<String>, Vec<String>);

/// Carried sets per step, for tests: `(step, keys, carried wire names)`.
pub fn carried_sets(item: TokenStream) -> Result<Vec<StepCarry>, Vec<String>> {
    let method: ImplItemFn = syn::parse2(item).map_err(|e| vec![e.to_string()])?;
    let mut errors = Errors::default();
    let (body, _) = analyse(&method, &mut errors).ok_or_else(|| errors.messages())?;
    if !errors.is_empty() {
        return Err(errors.messages());
    }
    Ok(body
        .sites
        .iter()
        .map(|s| {
            let keys = s.keys.iter().map(|k| k.key.to_string()).collect();
            let carried = s
                .live
                .iter()
                .filter(|&&b| body.bindings[b].is_serialized())
                .map(|&b| body.bindings[b].wire.clone())
                .collect();
            (s.step.clone(), keys, carried)
        })
        .collect())
}

/// The handler's parameters other than `self`, in order: what the IR's `param_args` follow.
fn typed_params(method: &ImplItemFn) -> impl Iterator<Item = &syn::PatType> {
    method.sig.inputs.iter().filter_map(|arg| match arg {
        FnArg::Typed(t) => Some(t),
        FnArg::Receiver(_) => None,
    })
}

fn analyse(method: &ImplItemFn, errors: &mut Errors) -> Option<(ir::Body, ir::Live)> {
    let ret = match &method.sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => {
            errors.at(&method.sig, "a `#[mrtr_tool]` handler returns what its `#[tool]` would, e.g. `Result<CallToolResult, ErrorData>`; add the return type");
            return None;
        }
    };
    let params: Vec<&Pat> = typed_params(method).map(|t| &*t.pat).collect();
    let mut body = build::build(&params, &method.block, ret, errors);
    let start_live = liveness::analyse(&mut body);
    validate::check(&body, errors);
    validate::check_carried_count(&body, &method.sig.ident, errors);
    Some((body, start_live))
}

/// The lowered impl items, and the step enum when `impl_of` asks for it and there are steps.
fn lower_method(
    method: &ImplItemFn,
    resource: bool,
    errors: &mut Errors,
    impl_of: Option<steps::ImplOf<'_>>,
) -> Option<(TokenStream, Option<TokenStream>)> {
    if method.sig.asyncness.is_none() {
        errors.at(
            method.sig.fn_token,
            "`#[mrtr_tool]` lowers an `async fn`; make the handler `async fn`",
        );
    }
    let kind = handler_kind(method, resource, errors)?;
    let (body, start_live) = analyse(method, errors)?;
    if !errors.is_empty() {
        return None;
    }
    let refilled = params::refilled(method, &body);
    let plan = lower::plan(&body, start_live, refilled);
    let ret = match &method.sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => return None,
    };
    let name = &method.sig.ident;
    let machine = codegen::Gen {
        body: &body,
        plan: &plan,
        ret: &ret,
        fn_name: name,
        local: is_local(method),
    };
    let handler_const = handler_const(&method.sig.ident);
    let lowered = machine.body_tokens(quote!(__mrtr_call.open(const { &Self::#handler_const })));
    let step_enum = impl_of.and_then(|impl_of| steps::step_enum(&machine, impl_of));
    Some((emit(method, kind, &ret, &machine, lowered), step_enum))
}

fn handler_kind(method: &ImplItemFn, resource: bool, errors: &mut Errors) -> Option<Kind> {
    let mut found = None;
    for attr in &method.attrs {
        match attr
            .path()
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .as_deref()
        {
            Some("tool") => found = found.or(Some((Kind::Tool, attr))),
            Some("prompt") => found = found.or(Some((Kind::Prompt, attr))),
            _ => {}
        }
    }
    match (found, resource) {
        (Some((kind, _)), false) => Some(kind),
        (None, true) => Some(Kind::Resource),
        (Some((_, attr)), true) => {
            errors.at(attr, "`#[mrtr_tool(resource)]` is for a `resources/read` handler called from your `read_resource`; remove this attribute, or drop `resource` to lower a tool or prompt");
            None
        }
        (None, false) => {
            errors.at(&method.sig.ident, "`#[mrtr_tool]` needs rmcp's `#[tool(..)]` or `#[prompt(..)]` right below it, so that the router registers the handler; for a `resources/read` handler write `#[mrtr_tool(resource)]`");
            None
        }
    }
}

/// `#[tool(local)]` / `#[prompt(local)]`: rmcp does not require the future to be `Send`.
fn is_local(method: &ImplItemFn) -> bool {
    method.attrs.iter().any(|attr| {
        let kind = attr.path().segments.last().map(|s| s.ident.to_string());
        matches!(kind.as_deref(), Some("tool" | "prompt"))
            && matches!(&attr.meta, syn::Meta::List(list) if list.tokens.clone().into_iter().any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "local")))
    })
}

/// `T` of a written `Json<T>` / `Result<Json<T>, E>`: rmcp derives the output schema from the
/// return type it sees, which the rewrite hides, so it is passed explicitly.
fn json_output(ret: &Type) -> Option<Type> {
    let Type::Path(path) = ret else { return None };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let first = args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })?;
    match last.ident.to_string().as_str() {
        "Json" => Some(first.clone()),
        "Result" => json_output(first),
        _ => None,
    }
}

fn forward_attrs(method: &ImplItemFn, kind: Kind, ret: &Type) -> Vec<syn::Attribute> {
    let mut attrs = method.attrs.clone();
    if kind != Kind::Tool {
        return attrs;
    }
    let Some(inner) = json_output(ret) else {
        return attrs;
    };
    for attr in &mut attrs {
        if attr
            .path()
            .segments
            .last()
            .is_none_or(|s| s.ident != "tool")
        {
            continue;
        }
        let existing = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        if existing.to_string().contains("output_schema") {
            continue;
        }
        let path = attr.path().clone();
        let schema = quote!(output_schema = ::mrtr::__private::rmcp::handler::server::tool::schema_for_output::<#inner>());
        *attr = if existing.is_empty() {
            syn::parse_quote!(#[#path(#schema)])
        } else {
            syn::parse_quote!(#[#path(#existing, #schema)])
        };
    }
    attrs
}

fn emit(
    method: &ImplItemFn,
    kind: Kind,
    ret: &Type,
    machine: &codegen::Gen<'_>,
    lowered: TokenStream,
) -> TokenStream {
    let name = &method.sig.ident;
    let vis = &method.vis;
    let body_fn = format_ident!("__mrtr_body_{}", name);
    let receiver = method.sig.inputs.iter().find_map(|arg| match arg {
        FnArg::Receiver(r) => Some(r),
        FnArg::Typed(_) => None,
    });
    let typed: Vec<&syn::PatType> = typed_params(method).collect();
    let thin_params = typed.iter().enumerate().map(|(i, t)| {
        let p = format_ident!("__mrtr_p{}", i);
        let ty = &t.ty;
        quote!(#p: #ty)
    });
    let forwarded = (0..typed.len()).map(|i| format_ident!("__mrtr_p{}", i));
    // A refilled parameter's pattern is bound in each arm that needs it (`params.rs`).
    let body_params = typed.iter().enumerate().map(|(i, t)| {
        if machine.plan.refilled.iter().any(|r| r.arg == i) {
            let p = format_ident!("__mrtr_p{}", i);
            let ty = &t.ty;
            quote!(#p: #ty)
        } else {
            quote!(#t)
        }
    });
    let attrs = forward_attrs(method, kind, ret);
    // The user's code lives in the body: their lint levels belong there too.
    let lints = method.attrs.iter().filter(|attr| {
        ["allow", "warn", "deny", "forbid"]
            .iter()
            .any(|lint| attr.path().is_ident(lint))
    });

    let local = machine.local && kind != Kind::Resource;
    let respond = if local {
        quote!(respond_local)
    } else {
        quote!(respond)
    };
    let (call_ty, response) = match kind {
        Kind::Tool => (
            quote!(ToolCall),
            quote!(::mrtr::__private::rmcp::model::CallToolResponse),
        ),
        Kind::Prompt => (quote!(PromptCall), quote!(::mrtr::__private::PromptOutcome)),
        Kind::Resource => (
            quote!(ResourceCall),
            quote!(::mrtr::__private::rmcp::model::ReadResourceResponse),
        ),
    };
    // The future borrows `&self` like the `async fn` it replaces (rmcp does the same rewrite).
    let (receiver_param, receiver_arg, body_receiver, lifetime) = match receiver {
        Some(r) => {
            let self_token = r.self_token;
            let lifetime = match &r.kind {
                syn::ReceiverKind::Reference(_, Some(lifetime), ..) => quote!(#lifetime),
                syn::ReceiverKind::Reference(..) => quote!('_),
                _ => quote!('static),
            };
            (quote!(#r,), quote!(#self_token,), quote!(#r,), lifetime)
        }
        None => (quote!(), quote!(), quote!(), quote!('static)),
    };
    // Short aliases: rmcp's `#[tool]` parses this method again, every token counts.
    let (future, local_future) = (quote!(Boxed), quote!(LocalBoxed));
    let alias = if local { local_future } else { future };
    let returned = quote!(::mrtr::__private::#alias<#lifetime, ::core::result::Result<#response, ::mrtr::__private::rmcp::ErrorData>>);
    let body_future = quote!(::mrtr::__private::#alias<#lifetime, ::mrtr::__private::Lifted<#ret>>);

    let steps = step_infos(machine);
    let mut capabilities: Vec<&str> = machine
        .body
        .sites
        .iter()
        .flat_map(|s| &s.keys)
        .filter_map(|k| k.capability)
        .collect();
    capabilities.sort_unstable();
    capabilities.dedup();
    let const_name = format_ident!("{}_STEPS", name.to_string().to_uppercase());
    let handler_const = handler_const(name);
    let const_doc = steps_doc(machine, name);
    let handler_doc = format!(
        "What the runtime knows of `{name}` (generated by `#[mrtr_tool]`): its steps and the \
         client capabilities its asks can need ({}), for the `-32021` gate and for listings.",
        if capabilities.is_empty() {
            "none".to_owned()
        } else {
            capabilities
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let span = method.sig.ident.span();
    let path = format!("::{name}");

    quote_spanned! {span=>
        #(#attrs)*
        #vis fn #name(#receiver_param __mrtr_call: ::mrtr::__private::#call_ty, #(#thin_params),*) -> #returned {
            let __mrtr_body: #body_future =
                ::std::boxed::Box::pin(Self::#body_fn(#receiver_arg __mrtr_call, #(#forwarded),*));
            ::mrtr::__private::#respond::<#ret, _>(__mrtr_body)
        }

        #[doc(hidden)]
        #[allow(unused_mut, unreachable_code, clippy::all, clippy::pedantic)]
        #(#lints)*
        async fn #body_fn(#body_receiver __mrtr_call: ::mrtr::__private::#call_ty, #(#body_params),*)
            -> ::mrtr::__private::Lifted<#ret>
        {
            #lowered
        }

        #[doc = #const_doc]
        #[allow(dead_code)]
        pub const #const_name: &'static [::mrtr::StepInfo] = &[#(#steps),*];

        #[doc = #handler_doc]
        #[allow(dead_code)]
        pub const #handler_const: ::mrtr::Handler = ::mrtr::Handler {
            path: ::core::concat!(::core::module_path!(), #path),
            steps: Self::#const_name,
            capabilities: &[#(#capabilities),*],
        };
    }
}

/// The handler's static facts (steps, capabilities): `DEPLOY_SERVICE_HANDLER`.
fn handler_const(name: &syn::Ident) -> syn::Ident {
    format_ident!("{}_HANDLER", name.to_string().to_uppercase())
}

fn step_infos(machine: &codegen::Gen<'_>) -> Vec<TokenStream> {
    machine
        .body
        .sites
        .iter()
        .enumerate()
        .map(|(site, s)| {
            let name = &s.step;
            let keys = s.keys.iter().map(|k| machine.key_display(site, &k.key));
            let carried = machine
                .step_slots(site)
                .into_iter()
                .map(|b| machine.body.bindings[b].wire.clone());
            let pc = machine.resume_pc(site);
            let mask = machine.step_mask(site);
            let layout = machine.layout(site);
            quote! {
                ::mrtr::StepInfo {
                    name: #name,
                    keys: &[#(#keys),*],
                    carried: &[#(#carried),*],
                    pc: #pc,
                    mask: #mask,
                    layout: ::core::concat!("mrtr-lowering/1|", ::core::module_path!(), #layout),
                }
            }
        })
        .collect()
}

fn steps_doc(machine: &codegen::Gen<'_>, name: &syn::Ident) -> String {
    let mut doc =
        format!("Resume steps of `{name}` (generated by `#[mrtr_tool]`), in source order.\n");
    if machine.body.sites.is_empty() {
        doc.push_str("\nThis handler has no `ask!`: it always completes in one round.\n");
    }
    for (site, s) in machine.body.sites.iter().enumerate() {
        doc.push_str(&format!(
            "\n- `{}`: after {}.",
            s.step,
            machine.step_summary(site)
        ));
    }
    doc
}
