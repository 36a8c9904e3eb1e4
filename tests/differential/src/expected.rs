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
pub const DOES_NOT_COMPILE: &[ExpectedFailure] = &[
    ExpectedFailure {
        case: "h42",
        defect: SHADOWED_PATTERN_TYPE,
    },
    ExpectedFailure {
        case: "h118",
        defect: SHADOWED_PATTERN_TYPE,
    },
    ExpectedFailure {
        case: "h149",
        defect: SHADOWED_PATTERN_TYPE,
    },
    ExpectedFailure {
        case: "h195",
        defect: SHADOWED_PATTERN_TYPE,
    },
    ExpectedFailure {
        case: "h92",
        defect: SHADOWED_PATTERN_MOVED,
    },
    ExpectedFailure {
        case: "h100",
        defect: SHADOWED_PATTERN_MOVED,
    },
    ExpectedFailure {
        case: "h304",
        defect: SHADOWED_PATTERN_MOVED,
    },
];

/// E0308 inside the lowered code: a pattern binding (`if let Some(v)`, `let Some(v) = .. else`)
/// that shadows an earlier local of another type is given that local's type.
pub const SHADOWED_PATTERN_TYPE: &str =
    "E0308: a shadowing pattern binding takes the type of the local it hides";

/// E0382 inside the lowered code: `let v: T = if let Some(v) = .. { ask!(..) .. }` — the
/// pattern's `v` is reported moved at the ask.
pub const SHADOWED_PATTERN_MOVED: &str =
    "E0382: a pattern binding that shadows the local being defined is moved at the ask";

/// Cases that compile but whose runs disagree with the reference.
pub const DISAGREES: &[ExpectedFailure] = &[];

/// Programs of the oracle survey (`ci::ORACLE_PROGRAMS` from `ci::SEED`) whose steps carry a
/// local that is dead after the ask: a local that is only ever assigned after the ask, inside
/// a loop that may not run (`while c < 1 { c += 1; v = 0; }`, `v` never read), is carried.
/// Correct behaviour, larger tokens.
pub const OVER_CARRIES: &[&str] = &[
    "h182", "h194", "h217", "h309", "h598", "h668", "h705", "h749", "h1404", "h1461", "h1465",
    "h1667", "h1682", "h1731", "h2012", "h2133", "h2197", "h2810", "h2923",
];

/// A rejection of valid generated programs that the lowering documents (README, "What the
/// lowering rejects"), by its message with numbers replaced by `N`.
pub struct KnownRejection {
    pub class: &'static str,
    pub readme_row: &'static str,
}

/// Currently none: the generator stays within what the lowering supports.
pub const KNOWN_REJECTIONS: &[KnownRejection] = &[];
