//! Compile-fail cases: every error the macros can raise, one folder per topic under `tests/ui/`.
//! The `.stderr` files are rustc 1.95's wording; other compilers skip this test.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*/*.rs");
}
