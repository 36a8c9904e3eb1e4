//! Stage 3, liveness: backward may-liveness over the IR's statement-level control flow.
//!
//! `live_in = uses ∪ (live_out − defs − kills)`, with extra edges for jumps to opened loops
//! and a fixpoint per opened loop. The carried set of an ask site is `live_in` of its resume
//! point: what the code after the answer still reads.

use super::ir::*;

/// Fills every live set of the IR (what is live on entry, parameters only, is the root
/// frame's `live_in`).
pub fn analyse(body: &mut Body) {
    frame_live(body, ROOT);
    hidden_bindings(body);
}

/// What each statement's pattern and each frame's start bindings hide by name while it is still
/// live: codegen parks those before the new binding shadows them.
fn hidden_bindings(body: &mut Body) {
    for frame in 0..body.frames.len() {
        if let Some((parent, index)) = body.frames[frame].parent {
            let scope = body.in_scope(parent, index);
            let f = &body.frames[frame];
            body.frames[frame].hides = body.hidden_by(&f.start, &scope, &f.live_in);
        }
        for index in 0..body.frames[frame].stmts.len() {
            let scope = body.in_scope(frame, index);
            let node = &body.frames[frame].stmts[index];
            body.frames[frame].stmts[index].hides =
                body.hidden_by(&node.defs, &scope, &node.live_out);
        }
    }
}

/// Live on entry to the code of `frame`, given the join/head sets its exit refers to.
fn frame_live(body: &mut Body, frame: FrameId) -> Live {
    let mut live = match body.frames[frame].exit {
        _ if body.frames[frame].tail_diverges => Live::new(),
        FrameExit::Return => Live::new(),
        FrameExit::Join(c) => body.constructs[c].live_join.clone(),
        FrameExit::Latch(c) => body.constructs[c].live_head.clone(),
    };
    live.retain(|b| !body.frames[frame].tail_kills.contains(b));
    live.extend(body.frames[frame].tail_uses.iter().copied());
    for &jump in &body.frames[frame].tail_jumps {
        live.extend(jump_target_live(body, jump));
    }
    for index in (0..body.frames[frame].stmts.len()).rev() {
        body.frames[frame].stmts[index].live_out = live.clone();
        live = node_live(body, frame, index, live);
    }
    body.frames[frame].live_in = live.clone();
    live
}

fn jump_target_live(body: &Body, jump: usize) -> Live {
    let target = &body.constructs[body.jumps[jump].target];
    match body.jumps[jump].kind {
        JumpKind::Break(_) => target.live_join.clone(),
        JumpKind::Continue => target.live_head.clone(),
    }
}

fn minus(live: &Live, remove: &[BindingId]) -> Live {
    live.iter()
        .copied()
        .filter(|b| !remove.contains(b))
        .collect()
}

fn node_live(body: &mut Body, frame: FrameId, index: usize, out: Live) -> Live {
    let node = &body.frames[frame].stmts[index];
    let defs = node.defs.clone();
    let out = if node.diverges { Live::new() } else { out };
    let mut after_bind = minus(&out, &defs);
    after_bind.extend(node.diverge_uses.iter().copied());
    for &jump in &node.jumps {
        after_bind.extend(jump_target_live(body, jump));
    }
    match &node.kind {
        NodeKind::Verbatim(_) => {
            // A jump inside the statement may leave before its assignments: what the jump's
            // target reads stays live whatever the statement kills.
            let mut live: Live = minus(&out, &defs)
                .into_iter()
                .filter(|b| !node.kills.contains(b))
                .collect();
            for &jump in &node.jumps {
                live.extend(jump_target_live(body, jump));
            }
            live.extend(node.uses.iter().copied());
            live
        }
        NodeKind::Ask { site, .. } => {
            let site = *site;
            let mut resume: Live = after_bind
                .into_iter()
                .filter(|b| !node.kills.contains(b))
                .collect();
            for &c in &body.sites[site].loops {
                resume.extend(body.constructs[c].kind.counter());
            }
            body.sites[site].live = resume.clone();
            resume.extend(body.frames[frame].stmts[index].uses.iter().copied());
            resume
        }
        NodeKind::Opened { construct, .. } => {
            let c = *construct;
            body.constructs[c].live_join = after_bind;
            construct_live(body, c)
        }
    }
}

fn construct_live(body: &mut Body, c: ConstructId) -> Live {
    match &body.constructs[c].kind {
        ConstructKind::If {
            branches,
            otherwise,
            cond_uses,
        } => {
            let frames: Vec<FrameId> = branches.iter().map(|(_, f)| *f).chain(*otherwise).collect();
            let has_else = otherwise.is_some();
            let mut live = cond_uses.clone();
            if !has_else {
                live.extend(body.constructs[c].live_join.iter().copied());
            }
            for f in frames {
                let start = body.frames[f].start.clone();
                live.extend(minus(&frame_live(body, f), &start));
            }
            live
        }
        ConstructKind::Match { arms, uses, .. } => {
            let frames: Vec<FrameId> = arms.iter().map(|(_, f)| *f).collect();
            let mut live = uses.clone();
            for f in frames {
                let start = body.frames[f].start.clone();
                live.extend(minus(&frame_live(body, f), &start));
            }
            live
        }
        ConstructKind::Block(f) => frame_live(body, *f),
        ConstructKind::Loop { .. } | ConstructKind::While { .. } | ConstructKind::For { .. } => {
            loop_live(body, c)
        }
    }
}

/// Head liveness to a fixpoint; returns what is live before the loop statement.
fn loop_live(body: &mut Body, c: ConstructId) -> Live {
    let (frame, state, extra): (FrameId, Vec<BindingId>, Live) = match &body.constructs[c].kind {
        ConstructKind::Loop { body: f, counter } => (*f, vec![*counter], Live::new()),
        ConstructKind::While {
            body: f,
            counter,
            cond_uses,
            ..
        } => (*f, vec![*counter], cond_uses.clone()),
        ConstructKind::For {
            body: f,
            counter,
            rest,
            ..
        } => (*f, vec![*rest, *counter], Live::new()),
        _ => unreachable!(),
    };
    let exits = !matches!(body.constructs[c].kind, ConstructKind::Loop { .. });
    body.constructs[c].live_head = Live::new();
    loop {
        let start = body.frames[frame].start.clone();
        let mut head: Live = minus(&frame_live(body, frame), &start);
        head.extend(state.iter().copied());
        head.extend(extra.iter().copied());
        if exits {
            head.extend(body.constructs[c].live_join.iter().copied());
        }
        if head == body.constructs[c].live_head {
            break;
        }
        body.constructs[c].live_head = head;
    }
    let mut before = minus(&body.constructs[c].live_head, &state);
    if let ConstructKind::For { iter_uses, .. } = &body.constructs[c].kind {
        before.extend(iter_uses.iter().copied());
    }
    before
}
