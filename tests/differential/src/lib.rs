//! Differential testing of the `#[mrtr_tool]` lowering (issue #9).
//!
//! Generated handler bodies ([`program`]) are compiled twice: as `#[mrtr_tool]` handlers and as
//! plain `async fn`s whose asks are awaited scripted answers (the reference). Each is run
//! ([`drive`]) as the reference, on 2026-07-28 with a fresh server every round, and on a legacy
//! session; the three must agree on the result, the effect log, the asks and the rounds. Without
//! compiling, every program's carried sets are checked against an independent liveness, and the
//! macro's rejections are counted by message.

pub mod ci;
pub mod drive;
pub mod expected;
pub mod program;
