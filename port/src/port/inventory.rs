//! The functions of a file, and what rmcp makes of each: a registered handler, a plain
//! function (a helper if it asks), or a method of a trait impl.

use std::ops::Range;

use syn::visit::{self, Visit};
use syn::{Attribute, Block, Signature, Visibility};

use crate::source::range;

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Role {
    /// `#[tool(..)]` or `#[prompt(..)]`: rmcp registers it; `#[mrtr_tool]` lowers it.
    Handler,
    /// A free function or inherent method: lowered with `#[mrtr_helper]` if it asks.
    Plain,
    /// A method of a trait impl (`ServerHandler::call_tool`, ...): never lowered.
    TraitMethod { trait_name: String },
}

pub struct Function<'a> {
    pub name: String,
    pub role: Role,
    pub sig: &'a Signature,
    pub block: &'a Block,
    pub public: bool,
    /// Where the item proper starts, after its attributes: a helper marker goes here.
    pub item_start: usize,
    /// rmcp's `#[tool(..)]`/`#[prompt(..)]`: `#[mrtr_tool]` goes directly above it.
    pub registration: Option<Range<usize>>,
    /// Already has `#[mrtr_tool]` or `#[mrtr_helper]`.
    pub lowered: bool,
    /// The `#[tool_router]` of the impl the method is in, when that impl has no `#[mrtr_tool]`
    /// yet: the impl-level attribute (step enums) goes above it.
    pub router: Option<usize>,
}

fn last_ident(attr: &Attribute) -> String {
    attr.path()
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

#[derive(Default)]
struct Collector<'a> {
    functions: Vec<Function<'a>>,
    trait_name: Option<String>,
    router: Option<usize>,
}

impl<'a> Collector<'a> {
    fn push(
        &mut self,
        attrs: &'a [Attribute],
        vis: &'a Visibility,
        sig: &'a Signature,
        block: &'a Block,
    ) {
        let registration = attrs
            .iter()
            .find(|a| matches!(last_ident(a).as_str(), "tool" | "prompt"))
            .map(range);
        let lowered = attrs
            .iter()
            .any(|a| matches!(last_ident(a).as_str(), "mrtr_tool" | "mrtr_helper"));
        let role = match (&self.trait_name, &registration) {
            (Some(t), _) => Role::TraitMethod {
                trait_name: t.clone(),
            },
            (None, Some(_)) => Role::Handler,
            (None, None) => Role::Plain,
        };
        let item_start = match vis {
            Visibility::Inherited => range(sig).start,
            v => range(v).start,
        };
        self.functions.push(Function {
            name: sig.ident.to_string(),
            role,
            sig,
            block,
            public: !matches!(vis, Visibility::Inherited),
            item_start,
            registration,
            lowered,
            router: self.router,
        });
    }
}

impl<'a> Visit<'a> for Collector<'a> {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let outer = (self.trait_name.take(), self.router.take());
        self.push(&f.attrs, &f.vis, &f.sig, &f.block);
        (self.trait_name, self.router) = outer;
    }

    fn visit_item_impl(&mut self, imp: &'a syn::ItemImpl) {
        let outer = (self.trait_name.take(), self.router.take());
        let marked = imp.attrs.iter().any(|a| last_ident(a) == "mrtr_tool");
        self.router = imp
            .attrs
            .iter()
            .find(|a| last_ident(a) == "tool_router")
            .filter(|_| !marked)
            .map(|a| range(a).start);
        self.trait_name = imp.trait_.as_ref().map(|(_, path, _)| {
            path.segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default()
        });
        for item in &imp.items {
            if let syn::ImplItem::Fn(f) = item {
                self.push(&f.attrs, &f.vis, &f.sig, &f.block);
            }
        }
        (self.trait_name, self.router) = outer;
    }

    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        visit::visit_item_mod(self, m);
    }

    // Default methods of trait definitions are not reached: nothing registers them.
    fn visit_item_trait(&mut self, _: &'a syn::ItemTrait) {}
}

pub fn functions(file: &syn::File) -> Vec<Function<'_>> {
    let mut collector = Collector::default();
    collector.visit_file(file);
    collector.functions
}
