//! The lowering's IR: the handler body as frames of statements, with the ask-bearing constructs
//! opened and everything liveness and codegen need already resolved to binding ids.
//!
//! A *frame* is one block the lowering takes apart (the function body, a branch of an opened
//! `if`/`match`, the body of an opened loop). Statements without `ask!` stay syntax
//! (`Node::Verbatim`); the others point at a [`Site`] (one `ask!`) or a [`Construct`].

use std::collections::BTreeSet;

use syn::{Block, Expr, Ident, Pat, Stmt, Type};

mod build;
mod exposed;
mod hoist;

pub use build::build;

pub type BindingId = usize;
pub type FrameId = usize;
pub type SiteId = usize;
pub type ConstructId = usize;
pub type Live = BTreeSet<BindingId>;

pub struct Body {
    pub bindings: Vec<Binding>,
    pub frames: Vec<Frame>,
    pub sites: Vec<Site>,
    pub constructs: Vec<Construct>,
    pub jumps: Vec<Jump>,
    /// Items declared in the body (`use`, nested `fn`): hoisted so every arm sees them.
    pub items: Vec<Stmt>,
    /// Bindings of the function's parameters, in order.
    pub params: Vec<BindingId>,
    /// The same, grouped by the typed parameter (`Parameters(args): Parameters<Args>`) that
    /// binds them.
    pub param_args: Vec<Vec<BindingId>>,
}

pub const ROOT: FrameId = 0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BindingKind {
    /// Bound by a parameter pattern: refilled from the call every round, never serialized.
    Param,
    /// A user `let`, `for`, `if let` or match-arm binding.
    Local,
    /// The remaining items of an opened `for` loop (a `VecDeque`).
    Rest(ConstructId),
    /// The iteration index of an opened loop: part of per-iteration wire keys.
    Counter(ConstructId),
}

pub struct Binding {
    pub ident: Ident,
    pub mutable: bool,
    pub by_ref: bool,
    pub ty: Option<Type>,
    pub kind: BindingKind,
    /// Wire name in the continuation: the binding's name, `name@k` for the k-th binding of it.
    pub wire: String,
    /// The initializer it was bound from, when it is a plain `let`: for the borrow pre-check.
    pub init: Option<Expr>,
    /// `let x;` without a value.
    pub uninit: bool,
    /// A borrowed view of another local, derived again in every arm that needs it instead of
    /// parked: a helper's `message: &str`, over the `String` its call owns (`helper.rs`).
    pub view_of: Option<BindingId>,
}

impl Binding {
    pub fn is_serialized(&self) -> bool {
        self.kind != BindingKind::Param && self.view_of.is_none()
    }
}

pub struct Frame {
    /// The enclosing frame and the index of the statement (in it) this frame sits in.
    pub parent: Option<(FrameId, usize)>,
    /// Bindings in scope from the frame's first statement (`if let`/arm/`for` patterns).
    pub start: Vec<BindingId>,
    pub exit: FrameExit,
    pub stmts: Vec<Node>,
    /// The block's tail expression; an ask-bearing tail is turned into a `let` beforehand.
    pub tail: Option<Expr>,
    pub tail_uses: Live,
    /// What the tail assigns on every path / anywhere (see [`Node::kills`], [`Node::writes`]).
    pub tail_kills: Live,
    pub tail_writes: Live,
    pub tail_jumps: Vec<usize>,
    /// The tail always leaves (`return x` as a match arm's value).
    pub tail_diverges: bool,
    /// Filled by liveness: live at the frame's first statement, its start bindings included.
    pub live_in: Live,
    /// Filled by liveness: outer bindings a start binding of the same name hides while they
    /// are still needed (`if let Some(item)` over a live outer `item`); they are parked before
    /// the frame is entered.
    pub hides: Live,
}

#[derive(Clone, Copy)]
pub enum FrameExit {
    /// The function body: the tail is the return value.
    Return,
    /// A branch of an opened `if`/`match`/block: the tail flows into the construct's join.
    Join(ConstructId),
    /// An opened loop's body: falls into the latch.
    Latch(ConstructId),
}

pub struct Node {
    pub kind: NodeKind,
    /// Bindings this statement introduces in its frame.
    pub defs: Vec<BindingId>,
    pub uses: Live,
    /// Bindings the statement assigns on every path that completes normally (`x = ..;`).
    pub kills: Live,
    /// Bindings the statement assigns anywhere (`if c { x = .. }` too): an arm running it must
    /// have them in scope, even when their old value is dead.
    pub writes: Live,
    /// Jumps (into [`Body::jumps`]) to opened loops written inside this statement.
    pub jumps: Vec<usize>,
    /// Filled by liveness: bindings live right after this statement.
    pub live_out: Live,
    /// What the `else` block of a `let .. else` on an ask or opened construct reads.
    pub diverge_uses: Live,
    /// The statement always leaves (`return`, `break`, `continue`, `panic!`): nothing after it
    /// in its frame runs, so nothing is live after it and no code is emitted after it.
    pub diverges: bool,
    /// A later statement of the same frame asks or opens a construct: the code after this one
    /// may run in another arm, where a `mut` binding of this statement is taken out and changed.
    pub split_after: bool,
    /// Filled by liveness: bindings in scope before the statement that one of its `defs` hides
    /// by name while they are still live after it; they are parked before the pattern binds.
    pub hides: Live,
}

impl Node {
    /// A statement of `kind` introducing `defs`, with nothing read, written or live yet.
    pub fn new(kind: NodeKind, defs: Vec<BindingId>) -> Self {
        Node {
            kind,
            defs,
            uses: Live::new(),
            kills: Live::new(),
            writes: Live::new(),
            jumps: Vec::new(),
            live_out: Live::new(),
            diverge_uses: Live::new(),
            diverges: false,
            split_after: false,
            hides: Live::new(),
        }
    }
}

pub enum NodeKind {
    Verbatim(Stmt),
    /// `let P = ask!(..) [else D];`, `ask!(..);`, or `x = ask!(..);` (`assign`).
    Ask {
        site: SiteId,
        pat: Option<Pat>,
        diverge: Option<Block>,
        assign: Option<BindingId>,
    },
    Opened {
        construct: ConstructId,
        pat: Option<Pat>,
        diverge: Option<Block>,
    },
}

/// One `ask!`: one round of input requests, one resume step.
pub struct Site {
    pub step: String,
    /// The macro path as written (`ask`, `mrtr::ask`).
    pub path: syn::Path,
    pub keys: Vec<SiteKey>,
    /// The opened loops around it, outermost first: their counters index the wire keys.
    pub loops: Vec<ConstructId>,
    /// Filled by liveness: what is carried to this step (`live_in` of its resume point).
    pub live: Live,
}

pub struct SiteKey {
    pub key: Ident,
    /// The request, or for a helper site the call that makes the helper's `Call`.
    pub request: Expr,
    pub capability: Option<&'static str>,
    /// `ask!(site: helper(..).await)`: the helper is entered at the step instead of asked.
    pub helper: Option<HelperEntry>,
}

/// How a helper site enters its callee at every entry: the callee's hidden run fn, on the
/// receiver the call was written on (`Self::__mrtr_run_gate`, `self.__mrtr_run_gate::<T>`), to
/// be called with the entry and the round.
pub struct HelperEntry {
    pub callee: proc_macro2::TokenStream,
    /// The helper's name as the user wrote it, for the step table's docs.
    pub name: String,
    /// Entered as a method (`self.gate(..)`): its machine needs the receiver.
    pub method: bool,
}

impl Site {
    /// The helper entered at this step, if it is a helper site (which has exactly one key).
    pub fn helper(&self) -> Option<(&SiteKey, &HelperEntry)> {
        match &self.keys[..] {
            [key] => key.helper.as_ref().map(|h| (key, h)),
            _ => None,
        }
    }
}

pub struct Construct {
    pub kind: ConstructKind,
    pub label: Option<syn::Lifetime>,
    /// The opened `let` this construct initializes: its value travels through a transfer slot.
    pub has_value: bool,
    /// Filled by liveness: live at the join (or loop exit), after the value is bound.
    pub live_join: Live,
    /// Filled by liveness: live at the loop head.
    pub live_head: Live,
}

// Sizes swing with proc-macro2's `span-locations` (which `mrtr-port` turns on in the
// workspace): a few of these live per handler, at compile time, so boxing buys nothing.
#[allow(clippy::large_enum_variant)]
pub enum ConstructKind {
    If {
        branches: Vec<(Expr, FrameId)>,
        otherwise: Option<FrameId>,
        cond_uses: Live,
    },
    Match {
        scrutinee: Expr,
        arms: Vec<(Pat, FrameId)>,
        uses: Live,
    },
    Block(FrameId),
    Loop {
        body: FrameId,
        counter: BindingId,
    },
    While {
        cond: Expr,
        body: FrameId,
        counter: BindingId,
        cond_uses: Live,
    },
    For {
        pat: Pat,
        iter: Expr,
        body: FrameId,
        rest: BindingId,
        counter: BindingId,
        iter_uses: Live,
    },
}

impl ConstructKind {
    pub fn is_loop(&self) -> bool {
        matches!(
            self,
            ConstructKind::Loop { .. } | ConstructKind::While { .. } | ConstructKind::For { .. }
        )
    }

    pub fn counter(&self) -> Option<BindingId> {
        match self {
            ConstructKind::Loop { counter, .. }
            | ConstructKind::While { counter, .. }
            | ConstructKind::For { counter, .. } => Some(*counter),
            _ => None,
        }
    }
}

/// A `break`/`continue` in verbatim code that leaves to an opened loop.
pub struct Jump {
    pub target: ConstructId,
    pub kind: JumpKind,
    /// Names bound around the jump inside its statement (`if let Some(item) = .. { break }`):
    /// an outer binding of such a name cannot be named at the jump, so its park is defined
    /// before the statement.
    pub inner_names: Vec<String>,
}

// Sizes swing with proc-macro2's `span-locations` (which `mrtr-port` turns on in the
// workspace): a few of these live per handler, at compile time, so boxing buys nothing.
#[allow(clippy::large_enum_variant)]
pub enum JumpKind {
    Break(Option<Expr>),
    Continue,
}

/// `target_env` → `TargetEnv`: step and enum names from keys and handler names.
pub fn pascal(snake: &str) -> String {
    ident_case::RenameRule::PascalCase.apply_to_field(snake.trim_start_matches("r#"))
}

impl Body {
    /// The bindings a site saves in its continuation: what is live there, parameters excepted
    /// (the client sends them again every round).
    pub fn carried_at<'b>(&'b self, site: &'b Site) -> impl Iterator<Item = BindingId> + 'b {
        site.live
            .iter()
            .copied()
            .filter(|&b| self.bindings[b].is_serialized())
    }

    /// Frames from the root down to `frame`, each with the statement index the next one sits in.
    pub fn path(&self, frame: FrameId, index: usize) -> Vec<(FrameId, usize)> {
        let mut path = vec![(frame, index)];
        let mut current = frame;
        while let Some((parent, at)) = self.frames[current].parent {
            path.push((parent, at));
            current = parent;
        }
        path.reverse();
        path
    }

    /// Every binding declared before statement `index` of `frame`, hidden by name or not.
    pub fn in_scope(&self, frame: FrameId, index: usize) -> Vec<BindingId> {
        let mut scope = self.params.clone();
        for (f, upto) in self.path(frame, index) {
            scope.extend(self.frames[f].start.iter().copied());
            scope.extend(
                self.frames[f].stmts[..upto]
                    .iter()
                    .flat_map(|n| n.defs.iter().copied()),
            );
        }
        scope
    }

    /// Of `scope`, the bindings still `live` that one of `defs` hides by name.
    pub fn hidden_by(&self, defs: &[BindingId], scope: &[BindingId], live: &Live) -> Live {
        scope
            .iter()
            .copied()
            .filter(|b| !defs.contains(b) && live.contains(b))
            .filter(|&b| {
                defs.iter()
                    .any(|&d| self.bindings[d].ident == self.bindings[b].ident)
            })
            .collect()
    }

    /// Bindings visible at statement `index` of `frame`, innermost name wins; each listed with
    /// the frame that declares it.
    pub fn visible(&self, frame: FrameId, index: usize) -> Vec<(FrameId, BindingId)> {
        let mut scope: Vec<(FrameId, BindingId)> = self.params.iter().map(|&b| (ROOT, b)).collect();
        for (f, upto) in self.path(frame, index) {
            let declared = self.frames[f].start.iter().copied().chain(
                self.frames[f].stmts[..upto]
                    .iter()
                    .flat_map(|n| n.defs.iter().copied()),
            );
            for b in declared {
                let name = self.bindings[b].ident.to_string();
                scope.retain(|(_, other)| self.bindings[*other].ident != name);
                scope.push((f, b));
            }
        }
        scope
    }
}
