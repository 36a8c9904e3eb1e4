//! `#[mrtr_helper]`: an `async fn` with `ask!` points that handlers (and other helpers) call,
//! lowered into a machine of its own and entered from its callers' `ask!(site: helper(..).await)`.
//!
//! One helper becomes two functions. The one with the user's name and parameters evaluates the
//! arguments once, at the call site, into a `Call` (not a future: awaited anywhere else it is a
//! compile error naming the fix). The hidden `__mrtr_run_<name>` is the machine: the same
//! pipeline as a handler's body, entered with the call's arguments or with the frame the caller
//! carried, ending in its value for the call site, or in `None` once it left a frame to carry or
//! a failure to report (`Io::settled`).
//!
//! Parameters, as a retry on another instance needs them:
//! - `ClientCaps`, `RequestContext<RoleServer>`, `Peer<RoleServer>` (by value or by reference)
//!   are this request's: bound afresh from the round at every entry, never carried;
//! - every other parameter is a value evaluated once at the call site and owned from there (a
//!   `&str` becomes a `String`, a `&T` a `T::Owned`); the helper carries it across its asks like
//!   any local;
//! - the receiver (`&self`) is the instance the retry reached, re-supplied by the caller.
//!
//! An `impl Trait` parameter stays one: the `Call` names its type as `impl Trait` in return
//! position, the machine takes it back as `impl Trait` in argument position, so callers'
//! turbofish (`choose::<Env>(..)`) means the same for both.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{FnArg, ImplItemFn, Pat, ReturnType, Type};

use super::codegen::{Gen, Machine};
use super::parse::{Handler, Kind};
use super::returns::Returns;
use super::{analyse, fallback, interface, plan};
use crate::errors::Errors;

/// A call through `dyn Trait` cannot name the machine it enters (its frame's type, its step
/// table), so pluggable gates keep the trait for the decision and ask in one helper.
const TRAIT_METHOD: &str = "a trait method cannot be an `#[mrtr_helper]`: a call through the trait (or `dyn`) cannot carry the implementation's frame across rounds. Keep the trait for the decision (`fn needs_confirmation(&self, action: &str) -> bool`, a no-op impl returning `false` for automation) and ask in one `#[mrtr_helper]` or in the handler";

/// `#[mrtr_helper]` on an `async fn` (free, inherent method or associated fn).
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let method: ImplItemFn = match syn::parse2(item.clone()) {
        Ok(method) => method,
        Err(e) => {
            let error = match syn::parse2::<syn::TraitItemFn>(item.clone()) {
                Ok(method) => syn::Error::new_spanned(&method.sig, TRAIT_METHOD),
                Err(_) => syn::Error::new(
                    e.span(),
                    "`#[mrtr_helper]` goes on an `async fn` whose body uses `ask!`",
                ),
            }
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::new();
    if !args.is_empty() {
        errors.at(&args, "`#[mrtr_helper]` takes no arguments");
    }
    if method.sig.asyncness.is_none() {
        errors.at(
            method.sig.fn_token,
            "`#[mrtr_helper]` lowers an `async fn`; make the helper `async fn`",
        );
    }
    let ret = match &method.sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => syn::parse_quote!(()),
    };
    let returns = Returns::of_helper(&ret);
    if let Returns::HelperPlain = returns {
        reject_question_marks(&method.block, &ret, &mut errors);
    }
    let params = classify(&method, &mut errors);
    if !errors.is_empty() {
        return fallback::method(&method, errors);
    }
    let analysed_method = machine_method(&method, &params);
    let body = analyse(&analysed_method, &returns, &mut errors);
    if !errors.is_empty() {
        return fallback::method(&method, errors);
    }
    errors.finish();
    let handler = Handler {
        method: &analysed_method,
        kind: Kind::Helper,
        ret: ret.clone(),
        returns,
        local: false,
        has_output_schema: false,
    };
    let plan = plan::plan(&body, &handler);
    let mut machine = Gen::new(&body, &plan, &handler);
    machine.machine = Machine::Helper {
        table: quote!(__MRTR_HELPER),
    };
    emit(&method, &params, &ret, &machine)
}

/// One typed parameter of a helper.
struct Param {
    pat: Pat,
    ty: Type,
    kind: ParamKind,
}

enum ParamKind {
    /// This request's: bound from the round at every entry.
    Context(Context),
    /// Evaluated at the call site; `owned` is what the call holds (`String` for `&str`).
    Value { owned: Box<Type>, borrowed: bool },
}

#[derive(Clone, Copy)]
enum Context {
    Caps,
    Request,
    Peer,
}

fn classify(method: &ImplItemFn, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for arg in &method.sig.inputs {
        let FnArg::Typed(typed) = arg else { continue };
        let (pat, ty) = ((*typed.pat).clone(), (*typed.ty).clone());
        let (inner, borrowed) = match &ty {
            Type::Reference(r) => {
                if r.mutability.is_some() {
                    errors.at(&ty, "a helper's parameter cannot be `&mut`: the helper may resume on another instance, in another request, where the caller's borrow does not exist; pass the value and return what changed");
                }
                ((*r.elem).clone(), true)
            }
            other => (other.clone(), false),
        };
        if let Some(source) = context_of(&inner) {
            params.push(Param {
                pat,
                ty,
                kind: ParamKind::Context(source),
            });
            continue;
        }
        if borrowed && !matches!(pat, Pat::Ident(_)) {
            errors.at(&pat, "a borrowed helper parameter is owned by the call and borrowed again inside: bind it to a name");
        }
        let owned = if borrowed {
            syn::parse_quote!(<#inner as ::std::borrow::ToOwned>::Owned)
        } else {
            ty.clone()
        };
        params.push(Param {
            pat,
            ty,
            kind: ParamKind::Value {
                owned: Box::new(owned),
                borrowed,
            },
        });
    }
    params
}

/// `ClientCaps`, `RequestContext<..>`, `Peer<..>`: the request's own, never carried.
fn context_of(ty: &Type) -> Option<Context> {
    let Type::Path(path) = ty else { return None };
    match path.path.segments.last()?.ident.to_string().as_str() {
        "ClientCaps" => Some(Context::Caps),
        "RequestContext" => Some(Context::Request),
        "Peer" => Some(Context::Peer),
        _ => None,
    }
}

/// `?` needs a `Result`/`Option` return written as such: the lowered helper wraps its first
/// type argument, which a type alias hides.
fn reject_question_marks(block: &syn::Block, ret: &Type, errors: &mut Errors) {
    struct Finder(Vec<Span>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
            self.0.push(e.question_token.span());
            syn::visit::visit_expr_try(self, e);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(Vec::new());
    finder.visit_block(block);
    let ret = quote!(#ret).to_string();
    for span in finder.0 {
        errors.at_span(span, format!("a helper that uses `?` spells its return type `Result<T, E>` or `Option<T>`: the lowering wraps `T`, and `{ret}` does not show it (write the alias out)"));
    }
}

/// The method the pipeline lowers: no typed parameters (each is a local bound by the body's
/// first statement, from the call's arguments, in the arm that starts the helper), the body
/// as written after that.
fn machine_method(method: &ImplItemFn, params: &[Param]) -> ImplItemFn {
    let rt = crate::runtime();
    let mut machine = method.clone();
    machine.sig.inputs = machine
        .sig
        .inputs
        .into_iter()
        .filter(|arg| matches!(arg, FnArg::Receiver(_)))
        .collect();
    let mut pats = Vec::new();
    let mut borrows = Vec::new();
    for Param { pat, ty, kind } in params {
        let ParamKind::Value { borrowed, .. } = kind else {
            continue;
        };
        if *borrowed {
            let Pat::Ident(name) = pat else { continue };
            // Carried under the parameter's own name (`wire` in `ir/build.rs`).
            let owned = format_ident!("__mrtr_own_{}", name.ident);
            pats.push(quote!(#owned));
            borrows.push(quote!(let #pat: #ty = ::std::borrow::Borrow::borrow(&#owned);));
        } else {
            pats.push(quote!(#pat));
        }
    }
    let stmts = &method.block.stmts;
    machine.block = syn::parse_quote!({
        let (#(#pats,)*) = #rt::mrtr_try_any!(#rt::out(&mut __mrtr_start, "the helper's arguments"));
        #(#borrows)*
        #(#stmts)*
    });
    machine
}

fn emit(method: &ImplItemFn, params: &[Param], ret: &Type, machine: &Gen<'_>) -> TokenStream {
    let rt = crate::runtime();
    let name = &method.sig.ident;
    let run = format_ident!("__mrtr_run_{}", name);
    let vis = &method.vis;
    let generics = &method.sig.generics;
    let where_clause = &generics.where_clause;
    let receiver = method.sig.receiver();
    let receiver_param = receiver.map(|r| quote!(#r,));
    let owned: Vec<&Type> = params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::Value { owned, .. } => Some(&**owned),
            ParamKind::Context(_) => None,
        })
        .collect();
    let args_ty = quote!((#(#owned,)*));
    let call_ty = quote!(#rt::Call<#args_ty, #ret>);
    // The machine's future is boxed `Send`: what its arguments are must be `Send` too.
    let sent = owned.iter().map(|ty| match ty {
        Type::ImplTrait(_) => quote!(#ty + ::core::marker::Send),
        ty => quote!(#ty),
    });
    let run_call_ty = quote!(#rt::Call<(#(#sent,)*), #ret>);

    // The function callers call: the user's signature, returning the call's arguments.
    let mut inputs = Vec::new();
    let mut values = Vec::new();
    let mut unused = Vec::new();
    for (i, param) in params.iter().enumerate() {
        let arg = format_ident!("__mrtr_arg{}", i);
        let ty = &param.ty;
        match &param.kind {
            ParamKind::Context(_) => {
                inputs.push(quote!(#arg: #ty));
                unused.push(arg);
            }
            ParamKind::Value { borrowed, .. } => {
                inputs.push(quote!(#arg: #ty));
                values.push(if *borrowed {
                    quote!(::std::borrow::ToOwned::to_owned(#arg))
                } else {
                    quote!(#arg)
                });
            }
        }
    }
    let docs = method
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc") || a.path().is_ident("allow"));
    let steps_doc = steps_doc(machine, name);
    let must_use = format!(
        "`{name}` is an `#[mrtr_helper]`: enter it with `ask!(site: {name}(..).await)` inside an `#[mrtr_tool]` or `#[mrtr_helper]` body"
    );
    let calling = quote_spanned! {name.span()=>
        #(#docs)*
        #[doc = #steps_doc]
        #[must_use = #must_use]
        #[allow(clippy::too_many_arguments)]
        #vis fn #name #generics (#receiver_param #(#inputs),*) -> #call_ty #where_clause {
            let _ = (#(#unused,)*);
            #rt::Call::new((#(#values,)*))
        }
    };

    // The machine.
    let contexts = params.iter().enumerate().filter_map(|(i, p)| {
        let Param { pat, ty, kind } = p;
        let ParamKind::Context(source) = kind else {
            return None;
        };
        let own = format_ident!("__mrtr_cx{}", i);
        let value = match source {
            Context::Caps => quote!(::core::clone::Clone::clone(__mrtr_io.capabilities())),
            Context::Request => quote!(#rt::mrtr_try_any!(__mrtr_io.request_context())),
            Context::Peer => quote!(#rt::mrtr_try_any!(__mrtr_io.request_context()).peer),
        };
        let bind = if matches!(ty, Type::Reference(_)) {
            quote!(&#own)
        } else {
            quote!(#own)
        };
        Some(quote! {
            let #own = #value;
            #[allow(unused_variables)]
            let #pat: #ty = #bind;
        })
    });
    let lowered_ty = machine.returns.lowered_helper(ret);
    let table = table(machine, name);
    let body = machine.body_tokens();
    let lints = interface::lint_levels(method);
    let generic_params = &generics.params;
    let (receiver_param, receiver_bound) = run_receiver(receiver);
    let sent_params = generics.type_params().map(|p| {
        let ident = &p.ident;
        quote!(#ident: ::core::marker::Send)
    });
    let bounds = receiver_bound.into_iter().chain(sent_params).collect();
    let where_clause = run_where(where_clause, bounds);
    // A boxed future rather than an `async fn`, so that a step function's site can hand the
    // function itself to the runtime (`mrtr`'s `callee`): one instance per helper, not a
    // closure per site. `'__mrtr_x` is every input's borrow; the first argument only bounds it
    // by the caller's `'__mrtr_a`.
    let run_fn = quote_spanned! {name.span()=>
        #[doc(hidden)]
        #(#lints)*
        #[allow(clippy::let_unit_value, clippy::multiple_bound_locations, unused_mut)]
        #vis fn #run <'__mrtr_x, '__mrtr_a, #generic_params> (
            #receiver_param
            _: &'__mrtr_x &'__mrtr_a (),
            __mrtr_site: &'__mrtr_x str,
            __mrtr_call: &'__mrtr_x mut ::core::option::Option<#run_call_ty>,
            __mrtr_frame_slot: &'__mrtr_x mut ::core::option::Option<#rt::Frame>,
            mut __mrtr_io: &'__mrtr_x mut #rt::Io,
        ) -> #rt::BoxFuture<'__mrtr_x, ::core::option::Option<#ret>> #where_clause {
            ::std::boxed::Box::pin(async move {
                #table
                let __mrtr_depth = __mrtr_io.enter(__mrtr_site);
                let (mut __mrtr_start, __mrtr_frame) =
                    #rt::Entry::new(__mrtr_call, __mrtr_frame_slot).open();
                let __mrtr_fresh = __mrtr_start.is_some();
                // The lowered body returns its own shape (`?` converts into the written error);
                // every way out of it leaves the site's key prefix and settles for the call site
                // (`Io::settled`).
                let __mrtr_lowered: #lowered_ty = async {
                    #(#contexts)*
                    #body
                }.await;
                __mrtr_io.leave(__mrtr_depth);
                __mrtr_io.settled(#rt::Settle::settle(__mrtr_lowered), __mrtr_frame_slot)
            })
        }
    };
    quote!(#calling #run_fn)
}

/// The machine's receiver: a reference borrowed for `'__mrtr_x` (the future holds it), and
/// for any other receiver the bound that says so.
fn run_receiver(receiver: Option<&syn::Receiver>) -> (TokenStream, Option<TokenStream>) {
    let Some(receiver) = receiver else {
        return (TokenStream::new(), None);
    };
    match &receiver.kind {
        syn::ReceiverKind::Reference(_, None, mutability) => {
            let self_token = &receiver.self_token;
            (quote!(&'__mrtr_x #mutability #self_token,), None)
        }
        syn::ReceiverKind::Reference(_, Some(lifetime), _) => {
            (quote!(#receiver,), Some(quote!(#lifetime: '__mrtr_x)))
        }
        _ => (quote!(#receiver,), Some(quote!(Self: '__mrtr_x))),
    }
}

fn run_where(where_clause: &Option<syn::WhereClause>, bounds: Vec<TokenStream>) -> TokenStream {
    match (where_clause, bounds.is_empty()) {
        (Some(clause), false) => {
            let predicates = clause.predicates.iter();
            quote!(where #(#predicates,)* #(#bounds),*)
        }
        (Some(clause), true) => quote!(#clause),
        (None, false) => quote!(where #(#bounds),*),
        (None, true) => TokenStream::new(),
    }
}

/// The helper's steps, as a `Handler` table local to its machine (no item outside the
/// function is needed, so a helper can sit in a module or an impl alike).
fn table(machine: &Gen<'_>, name: &syn::Ident) -> TokenStream {
    let rt = crate::runtime();
    let steps = interface::step_infos(machine);
    let capabilities = machine.capabilities();
    let path = format!("::{name}");
    quote! {
        const __MRTR_HELPER: #rt::Handler = #rt::Handler {
            path: ::core::concat!(::core::module_path!(), #path),
            steps: &[#(#steps),*],
            capabilities: &[#(#capabilities),*],
        };
    }
}

fn steps_doc(machine: &Gen<'_>, name: &syn::Ident) -> String {
    let mut doc = format!(
        "\n\n`#[mrtr_helper]`: enter with `ask!(site: {name}(..).await)`; its keys are asked as `site.key`. Its resume steps:\n"
    );
    if machine.body.sites.is_empty() {
        doc.push_str("\nnone: it never asks.\n");
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
