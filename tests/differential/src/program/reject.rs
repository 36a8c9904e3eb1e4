//! What the macro itself says about a generated handler, without compiling it: whether
//! `#[mrtr_tool]` rejects it (a `compile_error!` in its expansion), and its carried sets.

use std::collections::BTreeMap;
use std::str::FromStr;

use proc_macro2::{TokenStream, TokenTree};

use super::ast::Program;
use super::emit::{self, Mode};
use super::liveness;

/// The method as `#[mrtr_tool]` receives it: the lowered handler without the attribute itself.
fn method_tokens(program: &Program) -> TokenStream {
    let text = emit::handler(program, "h", Mode::Lowered);
    let text = text
        .trim_start()
        .strip_prefix("#[mrtr_tool]")
        .expect("the lowered form starts with the attribute");
    TokenStream::from_str(text).expect("generated handlers are valid Rust tokens")
}

/// The messages of every `compile_error!` the attribute emits for this handler (empty: accepted).
pub fn rejections(program: &Program) -> Vec<String> {
    let expanded = mrtr_macros_core::mrtr_tool(TokenStream::new(), method_tokens(program));
    let mut messages = Vec::new();
    compile_errors(expanded, &mut messages);
    messages
}

fn compile_errors(tokens: TokenStream, out: &mut Vec<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                if let Some(TokenTree::Group(args)) = trees.get(i + 2) {
                    let message = args
                        .stream()
                        .into_iter()
                        .find_map(|t| match t {
                            TokenTree::Literal(lit) => {
                                syn::parse_str::<syn::LitStr>(&lit.to_string()).ok()
                            }
                            _ => None,
                        })
                        .map(|lit| lit.value())
                        .unwrap_or_else(|| args.to_string());
                    out.push(message);
                }
            }
            TokenTree::Group(group) => compile_errors(group.stream(), out),
            _ => {}
        }
    }
}

/// A rejection message with the program's own names and numbers replaced, so that one rule of
/// the lowering is one group however many programs hit it.
pub fn classify(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out
}

/// One step whose carried set differs from the oracle's live set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarryMismatch {
    pub step: String,
    pub keys: Vec<String>,
    /// Carried by the macro but dead after the ask.
    pub over: Vec<String>,
    /// Live after the ask but not carried.
    pub under: Vec<String>,
}

/// Compares the macro's carried set of every step with [`liveness::live_after_asks`]. Only user
/// locals are compared (the macro's own `#rest`/`#i` loop state is not in the oracle), and by
/// base name with multiplicity: the macro numbers (`name@k`) only the bindings of constructs it
/// opens, which the oracle need not replicate; carrying the wrong one of two same-named
/// bindings shows up as a behaviour failure instead.
pub fn carry_mismatches(program: &Program) -> Result<Vec<CarryMismatch>, Vec<String>> {
    let steps = mrtr_macros_core::carried_sets(method_tokens(program))?;
    let live = liveness::live_after_asks(program);
    let wire = liveness::wire_names(program);
    let site_of_key: BTreeMap<String, usize> = live
        .keys()
        .flat_map(|&site| site_keys(program, site).into_iter().map(move |k| (k, site)))
        .collect();
    let mut mismatches = Vec::new();
    for (step, keys, carried) in steps {
        let Some(site) = keys.first().and_then(|k| site_of_key.get(k)) else {
            continue;
        };
        let carried = base_names(carried.iter().filter(|c| !c.starts_with('#')));
        let expected = base_names(live[site].iter().map(|v| &wire[v]));
        let over = excess(&carried, &expected);
        let under = excess(&expected, &carried);
        if !over.is_empty() || !under.is_empty() {
            mismatches.push(CarryMismatch {
                step,
                keys,
                over,
                under,
            });
        }
    }
    Ok(mismatches)
}

fn base_names<'a>(names: impl Iterator<Item = &'a String>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for name in names {
        let base = name.split('@').next().unwrap_or(name).to_owned();
        *counts.entry(base).or_insert(0) += 1;
    }
    counts
}

/// The names `a` has more of than `b`.
fn excess(a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>) -> Vec<String> {
    a.iter()
        .filter(|(name, n)| b.get(*name).copied().unwrap_or(0) < **n)
        .map(|(name, _)| name.clone())
        .collect()
}

fn site_keys(program: &Program, site: usize) -> Vec<String> {
    let prefix = format!("k{site}");
    program
        .keys
        .iter()
        .map(|(k, _)| k.clone())
        .filter(|k| {
            k == &prefix
                || (k.len() == prefix.len() + 1
                    && k.starts_with(&prefix)
                    && k.ends_with(|c: char| c.is_ascii_lowercase()))
        })
        .collect()
}
