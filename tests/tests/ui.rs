//! Compile-fail cases: every error the macros can raise, one folder per topic under `tests/ui/`.
//!
//! The `.stderr` files are rustc 1.95's wording. On any other compiler this test fails rather
//! than skipping, so a CI run on a new toolchain cannot pass without checking every case:
//! regenerate them there with `TRYBUILD=overwrite` and review the diff.

#[test]
fn ui() {
    let version = rustc_version();
    assert!(
        version.starts_with("1.95."),
        "the compile-fail expectations in tests/ui are rustc 1.95's wording, this is rustc {version}; \
         run on 1.95, or regenerate them with `TRYBUILD=overwrite cargo test -p mrtr-tests --test ui` and review the diff"
    );
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*/*.rs");
}

/// The version of the compiler that builds the cases (`$RUSTC`, as cargo sets it, else `rustc`).
fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned()
}
