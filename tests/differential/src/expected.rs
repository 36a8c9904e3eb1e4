//! Known lowering defects that the CI batch hits, kept out of the way so CI stays green, with
//! the defect each one shows. Remove an entry when its defect is fixed: a listed case that
//! passes fails the test, so the list cannot go stale.

/// A CI case that fails because of a known defect.
pub struct ExpectedFailure {
    pub case: &'static str,
    pub defect: &'static str,
}

/// Cases whose lowered handler does not compile: left out of the compiled batch
/// (`cargo run -p mrtr-differential --bin hunt -- --seed ci --count 320 --only h42` rebuilds
/// one and prints rustc's error).
pub const DOES_NOT_COMPILE: &[ExpectedFailure] = &[];

/// Cases that compile but whose runs disagree with the reference.
pub const DISAGREES: &[ExpectedFailure] = &[];

/// Programs of the oracle survey (`ci::ORACLE_PROGRAMS` from `ci::SEED`) whose steps carry a
/// local that is dead after the ask. None since the lowering's liveness reads assignments the
/// way the oracle does (an overwritten local is dead; a write is not a read; a loop body's
/// reads after an assignment of the same iteration do not see the old value).
pub const OVER_CARRIES: &[&str] = &[];

/// A rejection of valid generated programs that the lowering documents (README, "What the
/// lowering rejects"), by its message with numbers replaced by `N`.
pub struct KnownRejection {
    pub class: &'static str,
    pub readme_row: &'static str,
}

/// Currently none: the generator stays within what the lowering supports.
pub const KNOWN_REJECTIONS: &[KnownRejection] = &[];
