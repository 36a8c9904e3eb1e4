//! The checked-in seed and size of the batch `cargo test` compiles and runs.

/// The CI batch's seed: changing it changes every generated handler.
pub const SEED: u64 = 0x2026_0728;

/// Generated handlers the CI batch is drawn from (the first this many the macro accepts),
/// spread over [`BATCHES`] test targets; the known non-compiling ones of `expected.rs` are
/// dropped, leaving at least 300 compiled.
pub const PROGRAMS: usize = 320;

/// Test targets the batch is split into (`tests/generated_<i>.rs`): they build in parallel.
pub const BATCHES: usize = 3;

/// Answer scripts each handler runs under.
pub const SCRIPTS: usize = 3;

/// Programs the compile-free oracles (rejections, carried sets) check in CI.
pub const ORACLE_PROGRAMS: usize = 3000;
