//! The edits for one function, once the file's plan is settled: its asks, probes and calls,
//! its parameters, its `#[mrtr_tool]`/`#[mrtr_helper]` marker, and what the report says of it.

use std::collections::{BTreeMap, BTreeSet};

use super::inventory::Role;
use super::params::{self, Plan};
use super::{Analysed, imports};
use crate::edit::Edits;
use crate::report::{FileReport, HandlerReport, Site};
use crate::source::Source;

pub struct Emitter<'p> {
    pub src: &'p Source,
    pub plan: &'p Plan,
    pub by_name: &'p BTreeMap<String, usize>,
    /// Handler calls a `call_tool` arm replaced with `mrtr::call`.
    pub dispatched: &'p BTreeSet<usize>,
    pub edits: Edits,
    pub report: FileReport,
    pub needs: imports::Needs,
    /// `#[tool_router]` impls already given `#[mrtr_tool]`.
    pub routers: BTreeSet<usize>,
}

impl Emitter<'_> {
    pub fn function(&mut self, index: usize, a: &mut Analysed) {
        let touched = self.plan.touched[index];
        let stranded = !a.lowerable() && !a.scan.sites.is_empty();
        if !touched && !stranded && a.scan.manual.is_empty() && a.scan.notes.is_empty() {
            return;
        }
        let mut handler = HandlerReport {
            name: a.function.name.clone(),
            helper: a.function.role == Role::Plain,
            asks: Vec::new(),
        };
        if a.lowerable() {
            self.sites(a, &mut handler);
        } else {
            self.stranded(a);
        }
        if touched {
            for statement in &self.plan.dropped_aliases[index] {
                self.edits.delete(self.src.whole_lines(statement.clone()));
            }
            for p in &a.scan.probes {
                self.edits.replace(p.range.clone(), p.text.clone());
            }
        }
        self.calls(a, &mut handler);
        if touched {
            self.signature(index, a, handler);
        }
        for m in a.scan.manual.drain(..) {
            let site = Site::at(self.src, m.offset, m.what, m.suggestion);
            self.report.manual.push(site);
        }
        for n in a.scan.notes.drain(..) {
            let site = Site::at(self.src, n.offset, n.what, n.suggestion);
            self.report.notes.push(site);
        }
    }

    /// Each request rewritten into its `ask!`.
    fn sites(&mut self, a: &Analysed, handler: &mut HandlerReport) {
        for site in &a.scan.sites {
            for (r, text) in &site.edits {
                self.edits.replace(r.clone(), text.clone());
            }
            self.needs.ask = true;
            handler.asks.push(if site.adapted {
                format!("{} (legacy `Result` kept around it)", site.key)
            } else {
                site.key.clone()
            });
        }
    }

    /// Requests in a trait method or a plain `fn` stay: nothing can suspend there.
    fn stranded(&mut self, a: &Analysed) {
        for site in &a.scan.sites {
            self.report.manual.push(Site::at(
                self.src,
                site.covers.start,
                format!(
                    "a client request in `{}`, which `#[mrtr_tool]` cannot lower (a trait method or a non-`async` fn)",
                    a.function.name
                ),
                "move the work into a `#[tool]` method (dispatched with `mrtr::call`) or an `async` helper, and ask there",
            ));
        }
    }

    /// Calls into functions whose parameters changed, or that ask: their arguments follow the
    /// callee's parameters, and a helper that asks is entered with `ask!(site: ..)`.
    fn calls(&mut self, a: &mut Analysed, handler: &mut HandlerReport) {
        for call in &a.scan.calls {
            let Some(&callee) = self.by_name.get(&call.callee) else {
                continue;
            };
            if self.dispatched.contains(&call.offset) {
                continue;
            }
            params::call_edits(
                &mut self.edits,
                self.src,
                call,
                &self.plan.decisions[callee],
                self.plan.append_caps[callee],
                &a.caps,
            );
            if !self.plan.asks[callee] {
                continue;
            }
            match (&call.position, a.lowerable()) {
                (Ok(awaited), true) => {
                    let hint = call.key_hint.clone().unwrap_or_else(|| call.callee.clone());
                    let key = a.keys.fresh(hint.trim_start_matches('_'));
                    self.edits.insert(awaited.start, format!("ask!({key}: "));
                    self.edits.insert(awaited.end, ")");
                    self.needs.ask = true;
                    handler.asks.push(format!("{key} (helper `{}`)", call.callee));
                }
                (Err(why), true) => self.report.manual.push(Site::at(
                    self.src,
                    call.offset,
                    format!("the helper `{}` asks, but this call is {why}", call.callee),
                    format!("bind it first: `let answer = ask!(site: {}(..).await);`", call.callee),
                )),
                (_, false) => self.report.manual.push(Site::at(
                    self.src,
                    call.offset,
                    format!(
                        "`{}` asks the client, but `{}` cannot be lowered (a trait method or a non-`async` fn)",
                        call.callee, a.function.name
                    ),
                    "call it from a `#[tool]` method with `ask!(site: ..)`, or dispatch to such a method with `mrtr::call`",
                )),
            }
        }
    }

    /// The parameters (`caps` in, peers out), the marker, and the report's line.
    fn signature(&mut self, index: usize, a: &Analysed, handler: HandlerReport) {
        let src = self.src;
        let asks = self.plan.asks[index];
        let changed = params::param_edits(
            &mut self.edits,
            src,
            a,
            &self.plan.decisions[index],
            self.plan.append_caps[index],
        );
        self.needs.caps |= changed;
        match a.function.role {
            Role::Handler if !a.function.lowered && a.lowerable() => {
                let at = a
                    .function
                    .registration
                    .clone()
                    .expect("handlers are registered")
                    .start;
                self.edits
                    .insert(at, format!("#[mrtr_tool]\n{}", src.indent_at(at)));
                self.needs.mrtr_tool = true;
                if let Some(router) = a.function.router
                    && self.routers.insert(router)
                {
                    // On the impl too: each handler's step enum beside it, in rustdoc.
                    self.edits
                        .insert(router, format!("#[mrtr_tool]\n{}", src.indent_at(router)));
                }
            }
            Role::Plain if asks && !a.function.lowered => {
                let at = a.function.item_start;
                self.edits
                    .insert(at, format!("#[mrtr_helper]\n{}", src.indent_at(at)));
                self.needs.mrtr_helper = true;
                if a.function.public {
                    self.report.notes.push(Site::at(
                        src,
                        at,
                        format!("`{}` is public and now a `#[mrtr_helper]`", a.function.name),
                        "callers in the files given to this run were rewritten; any other caller enters it with `ask!(site: ..(..).await)` from a lowered handler",
                    ));
                }
            }
            _ => {}
        }
        if a.function.role == Role::Handler || asks {
            self.report.handlers.push(handler);
        } else if changed {
            self.report.probes.push(a.function.name.clone());
        }
    }
}
