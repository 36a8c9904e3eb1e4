//! Porting one file: read every function, decide what becomes an `ask!`, a helper, a `caps`
//! parameter, and emit the byte-range edits.
//!
//! 1. `inventory`: the file's functions and what rmcp makes of each (handler, plain, trait
//!    method).
//! 2. `scan` walks each body once (`peer` says what reaches the client); `forms` turns each
//!    awaited request into its `ask!`, `uses` follows a bound result to its tests, `arms` maps
//!    legacy patterns to `Answer` ones, `probe` turns capability checks into `caps`.
//! 3. `params::settle`: over the whole file (and what other files said), which functions ask
//!    and what becomes of each peer parameter.
//! 4. `emit` writes each function's edits; `dispatch` the `call_tool` arms, `derive` the
//!    `Elicit` derives, `imports` the `use mrtr::{..}` line.

mod arms;
mod derive;
mod dispatch;
mod emit;
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
use crate::report::FileReport;
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
#[derive(Default, Clone, PartialEq, Eq)]
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
    let dispatched = dispatch::rewrite(src, &all, &by_name, &plan, &mut edits, &mut report);

    let mut emit = emit::Emitter {
        src,
        plan: &plan,
        by_name: &by_name,
        dispatched: &dispatched,
        edits,
        report,
        needs: imports::Needs::default(),
        routers: BTreeSet::new(),
    };
    for (index, a) in all.iter_mut().enumerate() {
        emit.function(index, a);
    }
    let emit::Emitter {
        mut edits,
        mut report,
        mut needs,
        ..
    } = emit;

    let elicited: BTreeMap<String, usize> = all
        .iter()
        .filter(|a| a.lowerable())
        .flat_map(|a| a.scan.elicited.iter().cloned())
        .collect();
    derive::add_elicit(src, &elicited, &elsewhere.elicited, &mut edits, &mut report);

    if !edits.is_empty() {
        needs.answer = edits.mentions("Answer::");
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
