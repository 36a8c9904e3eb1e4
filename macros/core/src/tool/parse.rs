//! Stage 1, parse: what the handler is before its body is looked at. The attribute's own
//! arguments (read by darling), which rmcp attribute registers the method, and the options of
//! that attribute the lowering must honour (`local`, `output_schema`), parsed as meta items.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::Flag;
use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{Attribute, FnArg, ImplItemFn, Meta, ReturnType, Token, Type};

use super::returns::Returns;
use crate::errors::Errors;

/// `#[mrtr_tool(..)]`'s arguments.
#[derive(Default, FromMeta)]
struct Args {
    /// A `resources/read` handler, called from the server's own `read_resource`.
    resource: Flag,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    /// `#[mrtr_tool(resource)]`: rmcp has no resource router; the server's `read_resource`
    /// builds a `ResourceCall` and calls the method itself.
    Resource,
    /// `#[mrtr_helper]`: entered from its callers' call sites, never registered.
    Helper,
}

/// A handler as the attribute found it: everything later stages need besides its body.
pub struct Handler<'m> {
    pub method: &'m ImplItemFn,
    pub kind: Kind,
    /// The written return type.
    pub ret: Type,
    /// How the lowered body returns it.
    pub returns: Returns,
    /// `#[tool(local)]` / `#[prompt(local)]`: rmcp does not require the future to be `Send`.
    pub local: bool,
    /// rmcp's attribute already names an `output_schema`.
    pub has_output_schema: bool,
}

/// Reads the attribute's arguments and the method's shape; every problem goes to `errors`.
pub fn handler<'m>(
    args: TokenStream,
    method: &'m ImplItemFn,
    errors: &mut Errors,
) -> Option<Handler<'m>> {
    let args = read_args(args, errors);
    if method.sig.asyncness.is_none() {
        errors.at(
            method.sig.fn_token,
            "`#[mrtr_tool]` lowers an `async fn`; make the handler `async fn`",
        );
    }
    let ret = match &method.sig.output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => {
            errors.at(&method.sig, "a `#[mrtr_tool]` handler returns what its `#[tool]` would, e.g. `Result<CallToolResult, ErrorData>`; add the return type");
            None
        }
    };
    let registered = rmcp_attribute(method);
    let kind = match (registered, args.resource.is_present()) {
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
    };
    let options = registered
        .map(|(_, attr)| options_of(attr))
        .unwrap_or_default();
    let ret = ret?;
    Some(Handler {
        method,
        kind: kind?,
        returns: Returns::Handler(Box::new(ret.clone())),
        ret,
        local: options.local && kind != Some(Kind::Resource),
        has_output_schema: options.output_schema,
    })
}

fn read_args(args: TokenStream, errors: &mut Errors) -> Args {
    let parsed = NestedMeta::parse_meta_list(args)
        .map_err(darling::Error::from)
        .and_then(|items| Args::from_list(&items));
    match parsed {
        Ok(args) => args,
        Err(error) => {
            // darling's message (with its "did you mean") and where the options a user may
            // have meant belong.
            for error in error {
                let span = error.span();
                errors.at_span(span, format!("{error}; `#[mrtr_tool]` takes only `resource`, tool options go in the `#[tool(..)]` below it"));
            }
            Args::default()
        }
    }
}

/// rmcp's `#[tool(..)]` or `#[prompt(..)]` on the method, and which of the two.
fn rmcp_attribute(method: &ImplItemFn) -> Option<(Kind, &Attribute)> {
    method.attrs.iter().find_map(|attr| {
        match attr.path().segments.last()?.ident.to_string().as_str() {
            "tool" => Some((Kind::Tool, attr)),
            "prompt" => Some((Kind::Prompt, attr)),
            _ => None,
        }
    })
}

/// The options of rmcp's attribute the lowering must honour.
#[derive(Default)]
struct RmcpOptions {
    local: bool,
    output_schema: bool,
}

/// An attribute rmcp cannot parse is rmcp's to report: it reads here as having no options.
fn options_of(attr: &Attribute) -> RmcpOptions {
    let Meta::List(list) = &attr.meta else {
        return RmcpOptions::default();
    };
    let Ok(items) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
        return RmcpOptions::default();
    };
    let mut options = RmcpOptions::default();
    for item in &items {
        if item.path().is_ident("local") {
            options.local = true;
        } else if item.path().is_ident("output_schema") {
            options.output_schema = true;
        }
    }
    options
}

/// The handler's parameters other than `self`, in order: what the IR's `param_args` follow.
pub fn typed_params(method: &ImplItemFn) -> impl Iterator<Item = &syn::PatType> {
    method.sig.inputs.iter().filter_map(|arg| match arg {
        FnArg::Typed(t) => Some(t),
        FnArg::Receiver(_) => None,
    })
}
