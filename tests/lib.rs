//! Shared helpers for the mrtr test suite.

pub mod harness;
pub mod heap;
