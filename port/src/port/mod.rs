//! Porting one file: read every function, decide what becomes an `ask!`, a helper, a `caps`
//! parameter, and emit the byte-range edits.

mod arms;
mod derive;
mod dispatch;
mod forms;
mod imports;
mod inventory;
mod keys;
mod params;
mod peer;
mod probe;
mod scan;
mod uses;

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use crate::edit::Edits;
use crate::report::{FileReport, HandlerReport, Site};
use crate::source::Source;
use inventory::{Function, Role};
use peer::{ParamRole, PeerNames};

/// What porting a file produced: the edits, and what to tell the user.
pub struct FilePort {
    pub edits: Edits,
    pub report: FileReport,
    /// This file's functions other files may call, as far as the port changed them.
    pub summaries: BTreeMap<String, Summary>,
}

pub use params::Summary;

/// What other files of the run told the port about this one's neighbours.
#[derive(Default, PartialEq, Eq)]
pub struct Elsewhere {
    /// Types other files elicit and do not define.
    pub elicited: BTreeSet<String>,
    /// Functions of other files that ask or whose peer parameters changed.
    pub functions: BTreeMap<String, Summary>,
}

struct Analysed<'a> {
    function: Function<'a>,
    scan: scan::Scan,
    keys: keys::Keys,
    caps: String,
    has_caps: bool,
    /// Peer parameters: (index, name).
    peer_params: Vec<(usize, String)>,
}

impl Analysed<'_> {
    /// A lowered handler, or a function that can become a helper.
    fn lowerable(&self) -> bool {
        match self.function.role {
            Role::Handler => self.function.sig.asyncness.is_some(),
            Role::Plain => self.function.sig.asyncness.is_some(),
            Role::TraitMethod { .. } => false,
        }
    }
}

pub fn port(src: &Source, elsewhere: &Elsewhere) -> FilePort {
    let functions = inventory::functions(&src.file);
    let mut names: BTreeSet<String> = functions
        .iter()
        .filter(|f| !matches!(f.role, Role::TraitMethod { .. }))
        .map(|f| f.name.clone())
        .collect();
    // A name this file defines is this file's function; the others come from other files.
    let foreign: Vec<(&String, &Summary)> = elsewhere
        .functions
        .iter()
        .filter(|(name, _)| !names.contains(*name))
        .collect();
    names.extend(foreign.iter().map(|(name, _)| (*name).clone()));
    let mut all: Vec<Analysed> = functions
        .into_iter()
        .map(|function| analyse(src, function, &names))
        .collect();
    let by_name: BTreeMap<String, usize> = all
        .iter()
        .enumerate()
        .filter(|(_, a)| !matches!(a.function.role, Role::TraitMethod { .. }))
        .map(|(i, a)| (a.function.name.clone(), i))
        .chain(
            foreign
                .iter()
                .enumerate()
                .map(|(k, (name, _))| ((*name).clone(), all.len() + k)),
        )
        .collect();
    let foreign_summaries: Vec<Summary> = foreign.iter().map(|(_, s)| (*s).clone()).collect();

    let plan = params::settle(&all, &by_name, &foreign_summaries);
    let summaries: BTreeMap<String, Summary> = all
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            a.function.role == Role::Plain && (plan.asks[*i] || plan.changes_signature(*i))
        })
        .map(|(i, a)| (a.function.name.clone(), plan.summary(i)))
        .collect();
    let mut edits = Edits::default();
    let mut report = FileReport::default();
    let mut needs = imports::Needs::default();
    let mut routers = BTreeSet::new();
    let dispatched = dispatch::rewrite(src, &all, &by_name, &plan, &mut edits, &mut report);

    for (index, a) in all.iter_mut().enumerate() {
        let asks = plan.asks[index];
        let touched = plan.touched[index];
        let stranded = !a.lowerable() && !a.scan.sites.is_empty();
        if !touched && !stranded && a.scan.manual.is_empty() && a.scan.notes.is_empty() {
            continue;
        }
        if !a.lowerable() {
            // Requests in a trait method or a plain `fn` stay: nothing can suspend there.
            for site in &a.scan.sites {
                report.manual.push(Site::at(
                    src,
                    site.covers.start,
                    format!(
                        "a client request in `{}`, which `#[mrtr_tool]` cannot lower (a trait method or a non-`async` fn)",
                        a.function.name
                    ),
                    "move the work into a `#[tool]` method (dispatched with `mrtr::call`) or an `async` helper, and ask there",
                ));
            }
        }
        let mut handler = HandlerReport {
            name: a.function.name.clone(),
            helper: a.function.role == Role::Plain,
            asks: Vec::new(),
        };
        if a.lowerable() {
            for site in &a.scan.sites {
                for (r, text) in &site.edits {
                    edits.replace(r.clone(), text.clone());
                }
                needs.ask = true;
                needs.answer = true;
                handler.asks.push(if site.adapted {
                    format!("{} (legacy `Result` kept around it)", site.key)
                } else {
                    site.key.clone()
                });
            }
        }
        if touched {
            for statement in &plan.dropped_aliases[index] {
                edits.delete(src.whole_lines(statement.clone()));
            }
            for p in &a.scan.probes {
                edits.replace(p.range.clone(), p.text.clone());
            }
        }
        // Calls into functions whose signature or nature changed.
        for call in &a.scan.calls {
            let Some(&callee) = by_name.get(&call.callee) else {
                continue;
            };
            if dispatched.contains(&call.offset) {
                continue;
            }
            params::call_edits(
                &mut edits,
                src,
                call,
                &plan.decisions[callee],
                plan.append_caps[callee],
                &a.caps,
            );
            if !plan.asks[callee] {
                continue;
            }
            match (&call.position, a.lowerable()) {
                (Ok(awaited), true) => {
                    let hint = call.key_hint.clone().unwrap_or_else(|| call.callee.clone());
                    let key = a.keys.fresh(hint.trim_start_matches('_'));
                    edits.insert(awaited.start, format!("ask!({key}: "));
                    edits.insert(awaited.end, ")");
                    needs.ask = true;
                    handler.asks.push(format!("{key} (helper `{}`)", call.callee));
                }
                (Err(why), true) => report.manual.push(Site::at(
                    src,
                    call.offset,
                    format!("the helper `{}` asks, but this call is {why}", call.callee),
                    format!("bind it first: `let answer = ask!(site: {}(..).await);`", call.callee),
                )),
                (_, false) => report.manual.push(Site::at(
                    src,
                    call.offset,
                    format!(
                        "`{}` asks the client, but `{}` cannot be lowered (a trait method or a non-`async` fn)",
                        call.callee, a.function.name
                    ),
                    "call it from a `#[tool]` method with `ask!(site: ..)`, or dispatch to such a method with `mrtr::call`",
                )),
            }
        }
        if touched {
            let changed = params::param_edits(
                &mut edits,
                src,
                a,
                &plan.decisions[index],
                plan.append_caps[index],
            );
            needs.caps |= changed;
            match a.function.role {
                Role::Handler if !a.function.lowered && a.lowerable() => {
                    let at = a
                        .function
                        .registration
                        .clone()
                        .expect("handlers are registered")
                        .start;
                    edits.insert(at, format!("#[mrtr_tool]\n{}", src.indent_at(at)));
                    needs.mrtr_tool = true;
                    if let Some(router) = a.function.router
                        && routers.insert(router)
                    {
                        // On the impl too: each handler's step enum beside it, in rustdoc.
                        edits.insert(router, format!("#[mrtr_tool]\n{}", src.indent_at(router)));
                    }
                }
                Role::Plain if asks && !a.function.lowered => {
                    let at = a.function.item_start;
                    edits.insert(at, format!("#[mrtr_helper]\n{}", src.indent_at(at)));
                    needs.mrtr_helper = true;
                    if a.function.public {
                        report.notes.push(Site::at(
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
                report.handlers.push(handler);
            } else if changed {
                report.probes.push(a.function.name.clone());
            }
        }
        for m in a.scan.manual.drain(..) {
            report
                .manual
                .push(Site::at(src, m.offset, m.what, m.suggestion));
        }
        for n in a.scan.notes.drain(..) {
            report
                .notes
                .push(Site::at(src, n.offset, n.what, n.suggestion));
        }
    }

    let elicited: BTreeMap<String, usize> = all
        .iter()
        .filter(|a| a.lowerable())
        .flat_map(|a| a.scan.elicited.iter().cloned())
        .collect();
    derive::add_elicit(src, &elicited, &elsewhere.elicited, &mut edits, &mut report);

    if !edits.is_empty() {
        imports::add(src, &needs, &mut edits);
    }
    report.manual.sort_by_key(|s| (s.line, s.column));
    FilePort {
        edits,
        report,
        summaries,
    }
}

fn analyse<'a>(
    src: &'a Source,
    function: Function<'a>,
    names: &'a BTreeSet<String>,
) -> Analysed<'a> {
    let mut peer_names = PeerNames::default();
    let mut peer_params = Vec::new();
    let mut caps = None;
    for (index, arg) in function.sig.inputs.iter().enumerate() {
        match peer::param_role(arg) {
            (Some(name), ParamRole::Peer) => {
                peer_names.peers.insert(name.clone());
                peer_params.push((index, name));
            }
            (Some(name), ParamRole::Context) => {
                peer_names.contexts.insert(name.clone());
                peer_params.push((index, name));
            }
            (Some(name), ParamRole::Caps) => caps = Some(name),
            _ => {}
        }
    }
    let has_caps = caps.is_some();
    let caps = caps.unwrap_or_else(|| "caps".into());
    let mut scanner = scan::Scanner::new(src, peer_names, names, caps.clone());
    scanner.visit_block(function.block);
    let keys = std::mem::take(&mut scanner.keys);
    Analysed {
        function,
        scan: scanner.out,
        keys,
        caps,
        has_caps,
        peer_params,
    }
}
