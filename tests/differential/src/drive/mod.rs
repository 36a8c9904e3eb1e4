//! The runtime side: what generated handlers call, and the three runs of each (reference,
//! 2026-07-28 with a fresh server per round, legacy) with their comparison.

pub mod case;
pub mod compare;
pub mod eras;
pub mod reference;
pub mod verdict;
pub mod vocab;

pub use case::{Case, PlainCall};
pub use compare::{BatchRun, Failure, check_batch, check_case};
pub use reference::Reference;
