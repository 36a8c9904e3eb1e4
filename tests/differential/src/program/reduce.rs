//! The last mile after stream shrinking: deleting effects. An effect binds nothing, so any set
//! of them can go and the program stays valid; the generator puts one between every two
//! statements, which the stream cannot remove.

use std::collections::BTreeSet;

use super::ast::*;

/// Every effect's id, in program order.
pub fn effect_ids(program: &Program) -> Vec<u32> {
    let mut ids = Vec::new();
    visit_stmts(&program.body, &mut |s| {
        if let Stmt::Effect { id, .. } = s {
            ids.push(*id);
        }
    });
    ids
}

/// The program without the effects in `drop`.
pub fn without_effects(program: &Program, drop: &BTreeSet<u32>) -> Program {
    let mut program = program.clone();
    filter_stmts(&mut program.body, drop);
    program
}

fn visit_stmts(stmts: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in stmts {
        f(s);
        match s {
            Stmt::Let { init, .. } | Stmt::Assign { init, .. } => visit_init(init, f),
            Stmt::Flow(flow) => visit_flow(flow, f),
            Stmt::Guarded { body, .. } => visit_block(body, f),
            _ => {}
        }
    }
}

fn visit_block(block: &Block, f: &mut impl FnMut(&Stmt)) {
    visit_stmts(&block.stmts, f);
    if let Some(tail) = &block.tail {
        visit_init(tail, f);
    }
}

fn visit_init(init: &Init, f: &mut impl FnMut(&Stmt)) {
    if let Init::Flow(flow) = init {
        visit_flow(flow, f);
    }
}

fn visit_flow(flow: &Flow, f: &mut impl FnMut(&Stmt)) {
    match flow {
        Flow::If { then, els, .. } => {
            visit_block(then, f);
            match els {
                Some(Else::Block(b)) => visit_block(b, f),
                Some(Else::If(next)) => visit_flow(next, f),
                None => {}
            }
        }
        Flow::Match { arms, .. } => arms.iter().for_each(|a| visit_block(&a.body, f)),
        Flow::Loop { body, .. }
        | Flow::While { body, .. }
        | Flow::WhileLet { body, .. }
        | Flow::For { body, .. } => visit_block(body, f),
        Flow::Block(b) => visit_block(b, f),
    }
}

fn filter_stmts(stmts: &mut Vec<Stmt>, drop: &BTreeSet<u32>) {
    stmts.retain(|s| !matches!(s, Stmt::Effect { id, .. } if drop.contains(id)));
    for s in stmts {
        match s {
            Stmt::Let { init, .. } | Stmt::Assign { init, .. } => filter_init(init, drop),
            Stmt::Flow(flow) => filter_flow(flow, drop),
            Stmt::Guarded { body, .. } => filter_block(body, drop),
            _ => {}
        }
    }
}

fn filter_block(block: &mut Block, drop: &BTreeSet<u32>) {
    filter_stmts(&mut block.stmts, drop);
    if let Some(tail) = &mut block.tail {
        filter_init(tail, drop);
    }
}

fn filter_init(init: &mut Init, drop: &BTreeSet<u32>) {
    if let Init::Flow(flow) = init {
        filter_flow(flow, drop);
    }
}

fn filter_flow(flow: &mut Flow, drop: &BTreeSet<u32>) {
    match flow {
        Flow::If { then, els, .. } => {
            filter_block(then, drop);
            match els {
                Some(Else::Block(b)) => filter_block(b, drop),
                Some(Else::If(next)) => filter_flow(next, drop),
                None => {}
            }
        }
        Flow::Match { arms, .. } => arms
            .iter_mut()
            .for_each(|a| filter_block(&mut a.body, drop)),
        Flow::Loop { body, .. }
        | Flow::While { body, .. }
        | Flow::WhileLet { body, .. }
        | Flow::For { body, .. } => filter_block(body, drop),
        Flow::Block(b) => filter_block(b, drop),
    }
}

/// Drops every effect the failure does not need: all at once if possible, else those that can
/// go one by one (judged in one batch), together, else greedily one at a time.
pub fn drop_effects(program: Program, mut holds: impl FnMut(&[Program]) -> Vec<bool>) -> Program {
    let ids = effect_ids(&program);
    if ids.is_empty() {
        return program;
    }
    let all: BTreeSet<u32> = ids.iter().copied().collect();
    let none = without_effects(&program, &all);
    if holds(std::slice::from_ref(&none))[0] {
        return none;
    }
    let singles: Vec<Program> = ids
        .iter()
        .map(|id| without_effects(&program, &BTreeSet::from([*id])))
        .collect();
    let verdicts = holds(&singles);
    let removable: BTreeSet<u32> = ids
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| **v)
        .map(|(id, _)| *id)
        .collect();
    if removable.is_empty() {
        return program;
    }
    let together = without_effects(&program, &removable);
    if holds(std::slice::from_ref(&together))[0] {
        return together;
    }
    let first = removable.iter().next().copied().expect("non-empty");
    drop_effects(without_effects(&program, &BTreeSet::from([first])), holds)
}
