//! Stage 7, interface: the items rmcp, rustdoc and the runtime see. The method rmcp registers
//! (same name, attributes and docs; a plain `fn` that boxes the lowered body and hands it to the
//! runtime's response function), the hidden `async fn` holding the state machine, the
//! handler's step table (`<NAME>_STEPS`) and its static facts (`<NAME>_HANDLER`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{FnArg, ImplItemFn, Type};

use super::codegen::Gen;
use super::parse::{Handler, Kind, typed_params};

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

/// The method's attributes for the registered `fn`: with `output_schema` added for a `Json<T>`
/// return, which rmcp can no longer see once the signature is rewritten.
fn forward_attrs(handler: &Handler<'_>) -> Vec<syn::Attribute> {
    let mut attrs = handler.method.attrs.clone();
    if handler.kind != Kind::Tool || handler.has_output_schema {
        return attrs;
    }
    let Some(inner) = json_output(&handler.ret) else {
        return attrs;
    };
    let rt = crate::runtime();
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
        let path = attr.path().clone();
        let schema =
            quote!(output_schema = #rt::rmcp::handler::server::tool::schema_for_output::<#inner>());
        *attr = if existing.is_empty() {
            syn::parse_quote!(#[#path(#schema)])
        } else {
            syn::parse_quote!(#[#path(#existing, #schema)])
        };
    }
    attrs
}

/// Every item the attribute emits for one handler: the method rmcp registers, and the items
/// beside it (the machine's body, the step tables), which an impl-level `#[mrtr_tool]` puts in
/// an impl of their own so that `#[tool_router]` does not parse them again.
pub fn emit(handler: &Handler<'_>, machine: &Gen<'_>) -> (TokenStream, TokenStream) {
    let registered = registered_fn(handler, machine.plan.stepped, keeps_context(machine.plan));
    let body = body_fn(handler, machine);
    let tables = step_tables(handler, machine);
    (registered, quote!(#body #tables))
}

/// The registered method's name for the hidden `async fn` holding the machine.
fn body_fn_name(method: &ImplItemFn) -> syn::Ident {
    format_ident!("__mrtr_body_{}", method.sig.ident)
}

/// Whether the round needs rmcp's context or the call's arguments after it opens: a helper it
/// enters may take the context (`&RequestContext`, `&Peer`), and a parameter the body partly
/// moves before an arm boundary is decoded again from the arguments (`Io::reparse`).
fn keeps_context(plan: &crate::tool::plan::Plan) -> bool {
    !plan.frames.is_empty() || plan.refilled.iter().any(|r| r.from_arguments)
}

/// The call this kind of handler takes and the response type rmcp expects from the registered
/// method; the runtime's `respond` turns the body's outcome into that response.
fn request_kind(handler: &Handler<'_>, keeps_context: bool) -> (TokenStream, TokenStream) {
    let rt = crate::runtime();
    match handler.kind {
        Kind::Tool if only_arguments(handler) => (
            quote!(ToolCallInContext<#keeps_context>),
            quote!(#rt::rmcp::model::CallToolResponse),
        ),
        Kind::Tool => (quote!(ToolCall), quote!(#rt::rmcp::model::CallToolResponse)),
        Kind::Prompt => (quote!(PromptCall), quote!(#rt::PromptOutcome)),
        Kind::Helper => unreachable!("a helper is not registered"),
        Kind::Resource => (
            quote!(ResourceCall),
            quote!(#rt::rmcp::model::ReadResourceResponse),
        ),
    }
}

/// The parameter (and its argument) that takes rmcp's request context whole: last, so every
/// parameter of the user's has read it first (`mrtr::CallContext`). A resource's call carries
/// its context already (`ResourceCall::new`), and so does a tool's whose parameters are all
/// `Parameters<T>`, `ClientCaps` or `StepKey` ([`only_arguments`]).
fn trailing_context(handler: &Handler<'_>) -> Option<(TokenStream, TokenStream)> {
    let rt = crate::runtime();
    match handler.kind {
        Kind::Tool if only_arguments(handler) => None,
        Kind::Tool | Kind::Prompt => Some((
            quote!(__mrtr_context: #rt::CallContext),
            quote!(__mrtr_context),
        )),
        Kind::Resource | Kind::Helper => None,
    }
}

/// Whether every parameter of the user's is a `Parameters<T>`, which reads only the call's
/// arguments, or one the call hands over itself ([`from_call`]): the call then takes rmcp's
/// request context with it (`mrtr::ToolCallInContext`) instead of a trailing parameter taking it
/// after the user's have read it.
fn only_arguments(handler: &Handler<'_>) -> bool {
    typed_params(handler.method)
        .all(|param| last_ident_is(&param.ty, "Parameters") || from_call(&param.ty).is_some())
}

/// The call's method that hands over a `ClientCaps` or `StepKey` parameter of a handler whose
/// call takes the request context whole: read from the call, not through rmcp's extensions,
/// where the call would otherwise leave them for the parameter to find.
fn from_call(ty: &Type) -> Option<TokenStream> {
    if last_ident_is(ty, "ClientCaps") {
        Some(quote!(caps))
    } else if last_ident_is(ty, "StepKey") {
        Some(quote!(step_key))
    } else {
        None
    }
}

fn last_ident_is(ty: &Type, name: &str) -> bool {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == name),
        _ => false,
    }
}

/// The future borrows `&self` like the `async fn` it replaces (rmcp does the same rewrite): the
/// receiver as a parameter, as an argument, and the future's lifetime.
fn receiver(method: &ImplItemFn) -> (TokenStream, TokenStream, TokenStream) {
    let receiver = method.sig.inputs.iter().find_map(|arg| match arg {
        FnArg::Receiver(r) => Some(r),
        FnArg::Typed(_) => None,
    });
    match receiver {
        Some(r) => {
            let self_token = r.self_token;
            let lifetime = match &r.kind {
                syn::ReceiverKind::Reference(_, Some(lifetime), ..) => quote!(#lifetime),
                syn::ReceiverKind::Reference(..) => quote!('_),
                _ => quote!('static),
            };
            (quote!(#r,), quote!(#self_token,), lifetime)
        }
        None => (quote!(), quote!(), quote!('static)),
    }
}

/// The boxed future type, `Send` unless the handler is `local`; short aliases, since rmcp's
/// `#[tool]` parses this method again and every token counts.
fn boxed(handler: &Handler<'_>, lifetime: &TokenStream, output: TokenStream) -> TokenStream {
    let rt = crate::runtime();
    let alias = if handler.local {
        quote!(LocalBoxed)
    } else {
        quote!(Boxed)
    };
    quote!(#rt::#alias<#lifetime, #output>)
}

/// The plain `fn` rmcp registers: same name, attributes and parameters (plus the injected
/// call), returning the boxed future rmcp's own `#[tool]` would have made of the `async fn`.
///
/// The round is opened by the runtime's `respond`, which then starts the lowered body on its
/// `Io`: the body has no `.await` and no early return of its own for opening the round, which
/// is what type-checking every handler's body paid for.
fn registered_fn(handler: &Handler<'_>, stepped: bool, keeps_context: bool) -> TokenStream {
    let rt = crate::runtime();
    let method = handler.method;
    let (name, vis, ret) = (&method.sig.ident, &method.vis, &handler.ret);
    let body_fn = body_fn_name(method);
    let (receiver_param, receiver_arg, lifetime) = receiver(method);
    let (call_ty, response) = request_kind(handler, keeps_context);
    let context = trailing_context(handler);
    // A handler whose call takes the context whole gets its `ClientCaps` and `StepKey` from
    // the call, bound before the call opens (spanned at the parameter's type, so a type of that
    // name that is not mrtr's is reported there).
    let takes_context_whole = handler.kind == Kind::Tool && context.is_none();
    let handed = |ty: &Type| takes_context_whole.then(|| from_call(ty)).flatten();
    let params = typed_params(method)
        .enumerate()
        .filter(|(_, t)| handed(&t.ty).is_none())
        .map(|(i, t)| {
            let p = format_ident!("__mrtr_p{}", i);
            let ty = &t.ty;
            quote!(#p: #ty)
        })
        .chain(context.as_ref().map(|(param, _)| param.clone()));
    let bound_from_call: Vec<TokenStream> = typed_params(method)
        .enumerate()
        .filter_map(|(i, t)| {
            let getter = handed(&t.ty)?;
            let p = format_ident!("__mrtr_p{}", i);
            let ty = &t.ty;
            Some(quote_spanned!(syn::spanned::Spanned::span(ty)=> let #p: #ty = __mrtr_call.#getter();))
        })
        .collect();
    let forwarded = typed_params(method).enumerate().map(|(i, _)| {
        let p = format_ident!("__mrtr_p{}", i);
        quote!(#p)
    });
    let context_arg = context.map(|(_, arg)| quote!(, #arg));
    let handler_const = handler_const(name);
    let attrs = forward_attrs(handler);
    let returned = boxed(
        handler,
        &lifetime,
        quote!(::core::result::Result<#response, #rt::rmcp::ErrorData>),
    );
    // A step function is handed over as it is; an `async fn` body is started on the opened
    // round, boxed. Spanned at the method's name, as the whole method is: a body future that
    // is not `Send` is reported there.
    let (respond, body) = if stepped {
        (
            quote!(respond_steps),
            quote_spanned!(name.span()=> Self::#body_fn(#receiver_arg #(#forwarded),*)),
        )
    } else {
        let respond = if handler.local {
            quote!(respond_local)
        } else {
            quote!(respond)
        };
        let body = quote_spanned! {name.span()=>
            ::std::boxed::Box::new(move |__mrtr_io| {
                ::std::boxed::Box::pin(Self::#body_fn(#receiver_arg __mrtr_io, #(#forwarded),*))
            })
        };
        (respond, body)
    };
    quote_spanned! {name.span()=>
        #(#attrs)*
        #vis fn #name(#receiver_param __mrtr_call: #rt::#call_ty, #(#params),*) -> #returned {
            #(#bound_from_call)*
            #rt::#respond::<#ret, _>(
                __mrtr_call.open(const { &Self::#handler_const } #context_arg),
                #body,
            )
        }
    }
}

/// The hidden function holding the state machine, with the user's lint levels: a step
/// function, or an `async fn` that starts on the round `respond` opened.
fn body_fn(handler: &Handler<'_>, machine: &Gen<'_>) -> TokenStream {
    let rt = crate::runtime();
    let method = handler.method;
    let (ret, name) = (&handler.ret, &method.sig.ident);
    let body_fn = body_fn_name(method);
    let (receiver_param, _, lifetime) = receiver(method);
    // A refilled parameter's pattern is bound in each arm that needs it (`params.rs`).
    let params = typed_params(method).enumerate().map(|(i, t)| {
        if machine.plan.refilled.iter().any(|r| r.arg == i) {
            let p = format_ident!("__mrtr_p{}", i);
            let ty = &t.ty;
            quote!(#p: #ty)
        } else {
            quote!(#t)
        }
    });
    let lints = lint_levels(method);
    let lowered = machine.body_tokens();
    // A step function returns its closure; an `async fn` body starts on the opened round.
    let (asyncness, io_param, returned) = if machine.plan.stepped {
        (None, None, quote!(#rt::Steps<#lifetime, #ret>))
    } else {
        (
            Some(quote!(async)),
            Some(quote!(mut __mrtr_io: #rt::Io,)),
            quote!(#rt::Lifted<#ret>),
        )
    };
    quote_spanned! {name.span()=>
        #[doc(hidden)]
        #(#lints)*
        #asyncness fn #body_fn(#receiver_param #io_param #(#params),*) -> #returned {
            #lowered
        }
    }
}

/// The method's lint-level attributes: the user's code lives in the lowered body, so their
/// lint levels belong there too.
pub(super) fn lint_levels(method: &ImplItemFn) -> impl Iterator<Item = &syn::Attribute> {
    method.attrs.iter().filter(|attr| {
        ["allow", "warn", "deny", "forbid"]
            .iter()
            .any(|lint| attr.path().is_ident(lint))
    })
}

/// `<NAME>_STEPS` and `<NAME>_HANDLER`: the handler's resume steps and static facts.
fn step_tables(handler: &Handler<'_>, machine: &Gen<'_>) -> TokenStream {
    let rt = crate::runtime();
    let name = &handler.method.sig.ident;
    let steps = step_infos(machine);
    let capabilities = machine.capabilities();
    let const_name = steps_const(name);
    let handler_const = handler_const(name);
    let const_doc = steps_doc(machine, name);
    let listed = if capabilities.is_empty() {
        "none".to_owned()
    } else {
        capabilities
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let handler_doc = format!(
        "What the runtime knows of `{name}` (generated by `#[mrtr_tool]`): its steps and the \
         client capabilities its `ask!` requests name ({listed}), for listings and pre-flight \
         checks. The `-32021` gate itself checks each request as it is asked."
    );
    let path = format!("::{name}");
    quote_spanned! {name.span()=>
        #[doc = #const_doc]
        #[allow(dead_code)]
        pub const #const_name: &'static [#rt::StepInfo] = &[#(#steps),*];

        #[doc = #handler_doc]
        #[allow(dead_code)]
        pub const #handler_const: #rt::Handler = #rt::Handler {
            path: ::core::concat!(::core::module_path!(), #path),
            steps: Self::#const_name,
            capabilities: &[#(#capabilities),*],
        };
    }
}

/// The handler's step table: `DEPLOY_SERVICE_STEPS`.
pub fn steps_const(name: &syn::Ident) -> syn::Ident {
    format_ident!("{}_STEPS", name.to_string().to_uppercase())
}

/// The handler's static facts (steps, capabilities): `DEPLOY_SERVICE_HANDLER`.
fn handler_const(name: &syn::Ident) -> syn::Ident {
    format_ident!("{}_HANDLER", name.to_string().to_uppercase())
}

pub(super) fn step_infos(machine: &Gen<'_>) -> Vec<TokenStream> {
    machine
        .body
        .sites
        .iter()
        .enumerate()
        .map(|(site, s)| {
            let name = &s.step;
            let keys = s.keys.iter().map(|k| machine.key_display(site, &k.key));
            let carried = machine.carried_names(site);
            let pc = machine.resume_pc(site);
            let mask = machine.step_mask(site);
            let layout = machine.layout(site);
            let rt = crate::runtime();
            quote! {
                #rt::StepInfo {
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

fn steps_doc(machine: &Gen<'_>, name: &syn::Ident) -> String {
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
