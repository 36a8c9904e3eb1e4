//! Shared helpers for the mrtr test suite.

pub mod heap;
pub mod redis;
