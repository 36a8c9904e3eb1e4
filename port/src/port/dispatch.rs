//! A hand-written `ServerHandler::call_tool` that calls handlers itself: each arm that only
//! runs a lowered handler becomes `mrtr::call(self, Self::handler, request, context).await`,
//! which extracts, binds and seals as the router does.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat, Stmt};

use super::Analysed;
use super::inventory::Role;
use super::params::Plan;
use crate::edit::Edits;
use crate::report::{FileReport, Site};
use crate::source::{Source, range};

struct Matches<'a>(Vec<&'a syn::ExprMatch>);

impl<'a> Visit<'a> for Matches<'a> {
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        self.0.push(m);
        visit::visit_expr_match(self, m);
    }
}

fn param_name(arg: &FnArg) -> Option<String> {
    match arg {
        FnArg::Typed(t) => match &*t.pat {
            Pat::Ident(i) => Some(i.ident.to_string()),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

/// The one expression an arm evaluates: `{ e }` is `e`.
fn arm_expr(body: &Expr) -> Option<&Expr> {
    match body {
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [Stmt::Expr(e, None)] => arm_expr(e),
            _ => None,
        },
        e => Some(e),
    }
}

/// Rewrites the dispatch arms; returns the offsets of the handler calls it replaced, which
/// the rest of the port leaves alone.
pub fn rewrite(
    src: &Source,
    all: &[Analysed],
    by_name: &BTreeMap<String, usize>,
    plan: &Plan,
    edits: &mut Edits,
    report: &mut FileReport,
) -> BTreeSet<usize> {
    let mut replaced = BTreeSet::new();
    for a in all {
        let is_call_tool = matches!(&a.function.role, Role::TraitMethod { trait_name } if trait_name == "ServerHandler")
            && a.function.name == "call_tool";
        if !is_call_tool {
            continue;
        }
        let params: Vec<Option<String>> = a.function.sig.inputs.iter().map(param_name).collect();
        let (Some(Some(request)), Some(Some(context))) = (params.get(1), params.get(2)) else {
            continue;
        };
        let mut matches = Matches(Vec::new());
        matches.visit_block(a.function.block);
        for m in matches.0 {
            for arm in &m.arms {
                let body = range(&*arm.body);
                let calls: Vec<_> = a
                    .scan
                    .calls
                    .iter()
                    .filter(|c| body.start <= c.offset && c.offset < body.end)
                    .filter(|c| {
                        by_name.get(&c.callee).is_some_and(|&j| {
                            all.get(j).is_some_and(|f| f.function.role == Role::Handler)
                                && plan.touched[j]
                        })
                    })
                    .collect();
                let [call] = calls.as_slice() else { continue };
                let single = arm_expr(&arm.body)
                    .is_some_and(|e| src.text_of(e).matches(".await").count() == 1);
                if !single {
                    report.manual.push(Site::at(
                        src,
                        call.offset,
                        format!("this `call_tool` arm does more than run `{}`", call.callee),
                        format!("move that work into the tool and write the arm as `mrtr::call(self, Self::{}, {request}, {context}).await`", call.callee),
                    ));
                    replaced.insert(call.offset);
                    continue;
                }
                edits.replace(
                    body,
                    format!(
                        "mrtr::call(self, Self::{}, {request}, {context}).await",
                        call.callee
                    ),
                );
                replaced.insert(call.offset);
                report.dispatch.push(call.callee.clone());
            }
        }
    }
    replaced
}
