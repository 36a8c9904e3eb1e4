//! Which peer parameters become `caps`, which go, and which stay; settled over the whole file
//! because a helper's parameters follow from its callers' arguments and the other way round.

use std::collections::BTreeMap;
use std::ops::Range;

use super::Analysed;
use super::inventory::Role;
use super::scan::Call;
use crate::edit::Edits;
use crate::source::{Source, range};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Still used for something else (progress, logging, a request left for manual work).
    Keep,
    /// Only used to reach the client: becomes this request's `caps`.
    Caps,
    /// Only used to reach the client, and `caps` is not needed or already there.
    Remove,
}

/// What callers in other files need to know of a function: whether it asks (then it is a
/// helper, entered with `ask!(site: ..)`) and what became of its peer parameters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Summary {
    pub asks: bool,
    pub decisions: BTreeMap<usize, Decision>,
    pub append_caps: bool,
}

pub struct Plan {
    pub asks: Vec<bool>,
    /// Peer aliases (`let peer = context.peer.clone();`) nothing uses any more: deleted.
    pub dropped_aliases: Vec<Vec<Range<usize>>>,
    pub touched: Vec<bool>,
    pub decisions: Vec<BTreeMap<usize, Decision>>,
    pub append_caps: Vec<bool>,
}

impl Plan {
    pub fn changes_signature(&self, i: usize) -> bool {
        self.append_caps[i] || self.decisions[i].values().any(|d| *d != Decision::Keep)
    }

    pub fn summary(&self, i: usize) -> Summary {
        Summary {
            asks: self.asks[i],
            decisions: self.decisions[i].clone(),
            append_caps: self.append_caps[i],
        }
    }
}

fn touchable(a: &Analysed) -> bool {
    matches!(a.function.role, Role::Handler | Role::Plain)
}

/// `by_name` maps each callable name to its index: the file's own functions first, then
/// `elsewhere` (functions of other files, settled by an earlier pass), whose entries are fixed.
pub fn settle(all: &[Analysed], by_name: &BTreeMap<String, usize>, elsewhere: &[Summary]) -> Plan {
    let n = all.len() + elsewhere.len();
    let mut plan = Plan {
        asks: vec![false; n],
        dropped_aliases: vec![Vec::new(); n],
        touched: vec![false; n],
        decisions: vec![BTreeMap::new(); n],
        append_caps: vec![false; n],
    };
    for (k, s) in elsewhere.iter().enumerate() {
        plan.asks[all.len() + k] = s.asks;
        plan.decisions[all.len() + k] = s.decisions.clone();
        plan.append_caps[all.len() + k] = s.append_caps;
    }
    let callee = |c: &Call| by_name.get(&c.callee).copied();
    // Every call of function `i` in the file, for "every caller passes a peer here".
    let mut callers: Vec<Vec<&Call>> = vec![Vec::new(); n];
    for a in all {
        for c in &a.scan.calls {
            if let Some(j) = callee(c) {
                callers[j].push(c);
            }
        }
    }
    for _ in 0..32 {
        let before = (
            plan.asks.clone(),
            plan.decisions.clone(),
            plan.append_caps.clone(),
        );
        for (i, a) in all.iter().enumerate() {
            plan.asks[i] = a.lowerable()
                && (!a.scan.sites.is_empty()
                    || a.scan
                        .calls
                        .iter()
                        .any(|c| callee(c).is_some_and(|j| plan.asks[j]) && c.position.is_ok()));
        }
        for (i, a) in all.iter().enumerate() {
            if !touchable(a) {
                continue;
            }
            let calls_changed = a
                .scan
                .calls
                .iter()
                .filter_map(callee)
                .any(|j| plan.asks[j] || plan.changes_signature(j));
            plan.touched[i] = (a.lowerable() && !a.scan.sites.is_empty())
                || !a.scan.probes.is_empty()
                || calls_changed;
            if !plan.touched[i] {
                continue;
            }
            let needs_caps = !a.scan.probes.is_empty()
                || (a.lowerable() && a.scan.needs_caps)
                || a.scan.calls.iter().any(|c| {
                    callee(c).is_some_and(|j| {
                        plan.append_caps[j]
                            || c.args.iter().any(|arg| {
                                arg.peer.is_some()
                                    && plan.decisions[j].get(&arg.param) == Some(&Decision::Caps)
                            })
                    })
                });
            let consumed_directly = |name: &str, dropped: &[Range<usize>]| {
                a.scan
                    .peer_uses
                    .iter()
                    .filter(|(n, _)| n == name)
                    .all(|(_, at)| {
                        let inside = |r: &Range<usize>| r.start <= *at && *at < r.end;
                        dropped.iter().any(inside)
                            || (a.lowerable() && a.scan.sites.iter().any(|s| inside(&s.covers)))
                            || a.scan.probes.iter().any(|p| inside(&p.range))
                            || a.scan.calls.iter().any(|c| {
                                callee(c).is_some_and(|j| {
                                    c.args.iter().any(|arg| {
                                        inside(&arg.range)
                                            && plan.decisions[j]
                                                .get(&arg.param)
                                                .is_some_and(|d| *d != Decision::Keep)
                                    })
                                })
                            })
                    })
            };
            let dropped: Vec<Range<usize>> = a
                .scan
                .aliases
                .iter()
                .filter(|alias| consumed_directly(&alias.name, &[]))
                .map(|alias| alias.statement.clone())
                .collect();
            let consumed = |name: &str| consumed_directly(name, &dropped);
            plan.dropped_aliases[i] = dropped.clone();
            let callers_pass_peer = |k: usize| {
                callers[i].iter().all(|c| {
                    c.args
                        .iter()
                        .any(|arg| arg.param == k && arg.peer.is_some())
                })
            };
            let mut decisions = BTreeMap::new();
            let mut caps_given = a.has_caps;
            for (k, name) in &a.peer_params {
                let free = consumed(name) && callers_pass_peer(*k);
                let d = match (free, needs_caps && !caps_given) {
                    (false, _) => Decision::Keep,
                    (true, true) => {
                        caps_given = true;
                        Decision::Caps
                    }
                    (true, false) => Decision::Remove,
                };
                decisions.insert(*k, d);
            }
            plan.decisions[i] = decisions;
            plan.append_caps[i] = needs_caps && !caps_given;
        }
        if before
            == (
                plan.asks.clone(),
                plan.decisions.clone(),
                plan.append_caps.clone(),
            )
        {
            break;
        }
    }
    plan
}

/// Deletes item `k` of a comma-separated list along with its separator, whole lines when the
/// list has one item per line.
fn delete_listed(
    edits: &mut Edits,
    src: &Source,
    items: &[(Range<usize>, Option<Range<usize>>)],
    k: usize,
) {
    let (item, comma) = &items[k];
    let span = match (comma, k.checked_sub(1)) {
        (Some(c), _) => {
            let mut end = c.end;
            let next = items.get(k + 1).map(|(r, _)| r.start);
            if let Some(next) = next
                && src.text[end..next].trim().is_empty()
                && !src.text[end..next].contains('\n')
            {
                end = next;
            }
            src.whole_lines(item.start..end)
        }
        (None, Some(prev)) => match &items[prev].1 {
            Some(prev_comma) => prev_comma.start..item.end,
            None => item.clone(),
        },
        (None, None) => item.clone(),
    };
    edits.delete(span);
}

pub fn call_edits(
    edits: &mut Edits,
    src: &Source,
    call: &Call,
    decisions: &BTreeMap<usize, Decision>,
    append: bool,
    caps: &str,
) {
    let items: Vec<(Range<usize>, Option<Range<usize>>)> = call
        .args
        .iter()
        .map(|arg| (arg.range.clone(), arg.comma.clone()))
        .collect();
    for (position, arg) in call.args.iter().enumerate() {
        match (decisions.get(&arg.param), &arg.peer) {
            (Some(Decision::Caps), Some(_)) => edits.replace(arg.range.clone(), format!("&{caps}")),
            (Some(Decision::Remove), Some(_)) => delete_listed(edits, src, &items, position),
            _ => {}
        }
    }
    if append {
        let text = if call.has_args {
            format!(", &{caps}")
        } else {
            format!("&{caps}")
        };
        edits.insert(call.args_end, text);
    }
}

/// The function's own parameter list; whether it gained `caps`.
pub fn param_edits(
    edits: &mut Edits,
    src: &Source,
    a: &Analysed,
    decisions: &BTreeMap<usize, Decision>,
    append: bool,
) -> bool {
    let ty = match a.function.role {
        Role::Handler => "ClientCaps",
        _ => "&ClientCaps",
    };
    let items: Vec<(Range<usize>, Option<Range<usize>>)> = a
        .function
        .sig
        .inputs
        .pairs()
        .map(|p| (range(p.value()), p.punct().map(range)))
        .collect();
    let mut gained = false;
    for (k, d) in decisions {
        match d {
            Decision::Caps => {
                edits.replace(items[*k].0.clone(), format!("{}: {ty}", a.caps));
                gained = true;
            }
            Decision::Remove => delete_listed(edits, src, &items, *k),
            Decision::Keep => {}
        }
    }
    if append {
        gained = true;
        match items.last() {
            Some((_, Some(comma))) => {
                let indent = src.indent_at(items.last().map_or(0, |(r, _)| r.start));
                edits.insert(comma.end, format!("\n{indent}{}: {ty},", a.caps));
            }
            Some((r, None)) => edits.insert(r.end, format!(", {}: {ty}", a.caps)),
            None => {
                let paren = crate::source::span_range(a.function.sig.paren_token.span.open()).end;
                edits.insert(paren, format!("{}: {ty}", a.caps));
            }
        }
    }
    gained
}
