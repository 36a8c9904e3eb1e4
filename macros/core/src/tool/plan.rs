//! Stage 5, plan: the machine's shape, decided once from the analysed IR: which arms exist and in what order,
//! where each arm starts, and which bindings get a slot, a carried slot or a type witness.

use std::collections::BTreeSet;

use super::ir::*;
use super::params::{self, Refilled};
use super::parse::Handler;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arm {
    Start,
    Resume(SiteId),
    /// After an opened `if`/`match`/block (a join) or an opened loop (its exit).
    Join(ConstructId),
    /// An opened loop's head.
    Head(ConstructId),
}

pub struct Plan {
    /// In source order: rustc infers a slot's type from the first arm that fills it, so arms
    /// follow the source as the user wrote it.
    pub arms: Vec<Arm>,
    /// Where each site's `ask!` statement is.
    pub site_at: Vec<(FrameId, usize)>,
    /// Where each opened construct's statement is.
    pub construct_at: Vec<(FrameId, usize)>,
    /// Bindings that cross an arm boundary somewhere: they get a hoisted slot.
    pub slotted: BTreeSet<BindingId>,
    /// Bindings saved in some continuation: each gets a `mrtr::Slot` in the carried tuple, in
    /// this order.
    pub carried: BTreeSet<BindingId>,
    /// Live on entry to the body (parameters only).
    pub start_live: Live,
    /// Bindings assigned from an `ask!` (`x = ask!(..);`) that no slot ties across arms: the
    /// arm that declares them and the arm that assigns them are separate scopes, so a hoisted
    /// `PhantomData` witness carries the type from the assignment back to the `let`, as plain
    /// Rust infers it (`let mut x = Answer::Cancel; .. x = ask!(..)`).
    pub typed_by_ask: BTreeSet<BindingId>,
    /// Parameters taken again from the request in each arm instead of parked (`params.rs`).
    pub refilled: Vec<Refilled>,
    /// The helper sites, in order: each has a frame slot after the carried locals.
    pub frames: Vec<SiteId>,
    /// The body lowers into a step function, not an `async fn` (`stepped.rs`).
    pub stepped: bool,
}

impl Plan {
    /// The refilled parameter that binds `b`, if any.
    pub fn refill_of(&self, b: BindingId) -> Option<&Refilled> {
        self.refilled.iter().find(|r| r.bindings.contains(&b))
    }
}

pub fn plan(body: &Body, handler: &Handler<'_>) -> Plan {
    let refilled = params::refilled(handler.method, body);
    let start_live = body.frames[ROOT].live_in.clone();
    let mut plan = Plan {
        arms: vec![Arm::Start],
        site_at: vec![(0, 0); body.sites.len()],
        construct_at: vec![(0, 0); body.constructs.len()],
        slotted: BTreeSet::new(),
        carried: BTreeSet::new(),
        start_live,
        typed_by_ask: BTreeSet::new(),
        refilled,
        frames: (0..body.sites.len())
            .filter(|&s| body.sites[s].helper().is_some())
            .collect(),
        stepped: super::stepped::stepped(handler, body),
    };
    walk(body, ROOT, &mut plan);
    // Parameters are not slotted for the start arm: it runs before the dispatch loop, where
    // they are still bound as the signature bound them. Only a boundary they cross needs one.
    for site in &body.sites {
        plan.slotted.extend(site.live.iter().copied());
        plan.carried.extend(body.carried_at(site));
    }
    for construct in &body.constructs {
        plan.slotted.extend(construct.live_join.iter().copied());
        plan.slotted.extend(construct.live_head.iter().copied());
    }
    // A step function may be called more than once: the start arm moves its parameters out
    // of slots the closure owns, never out of the closure's captures.
    if plan.stepped {
        plan.slotted.extend(plan.start_live.iter().copied());
    }
    let refilled: Vec<BindingId> = plan
        .refilled
        .iter()
        .flat_map(|r| r.bindings.iter().copied())
        .collect();
    plan.slotted
        .retain(|b| !refilled.contains(b) && body.bindings[*b].view_of.is_none());
    plan.typed_by_ask = body
        .frames
        .iter()
        .flat_map(|f| &f.stmts)
        .filter_map(|node| match &node.kind {
            NodeKind::Ask {
                assign: Some(b), ..
            } => Some(*b),
            _ => None,
        })
        .filter(|b| !plan.slotted.contains(b) && !body.bindings[*b].uninit)
        .collect();
    plan
}

fn walk(body: &Body, frame: FrameId, plan: &mut Plan) {
    for (index, node) in body.frames[frame].stmts.iter().enumerate() {
        match &node.kind {
            NodeKind::Verbatim(_) => {}
            NodeKind::Ask { site, .. } => {
                plan.site_at[*site] = (frame, index);
                plan.arms.push(Arm::Resume(*site));
            }
            NodeKind::Opened { construct, .. } => {
                let c = *construct;
                plan.construct_at[c] = (frame, index);
                let kind = &body.constructs[c].kind;
                if kind.is_loop() {
                    plan.arms.push(Arm::Head(c));
                }
                for child in child_frames(kind) {
                    walk(body, child, plan);
                }
                plan.arms.push(Arm::Join(c));
            }
        }
    }
}

pub fn child_frames(kind: &ConstructKind) -> Vec<FrameId> {
    match kind {
        ConstructKind::If {
            branches,
            otherwise,
            ..
        } => branches.iter().map(|(_, f)| *f).chain(*otherwise).collect(),
        ConstructKind::Match { arms, .. } => arms.iter().map(|(_, f)| *f).collect(),
        ConstructKind::Block(f) => vec![*f],
        ConstructKind::Loop { body, .. }
        | ConstructKind::While { body, .. }
        | ConstructKind::For { body, .. } => vec![*body],
    }
}
