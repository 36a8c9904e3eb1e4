//! The generator's own guarantees: a program is a pure function of its choice stream, any
//! stream (as proptest generates and shrinks them) yields a handler the macro can analyse, and
//! the size limits hold.

use mrtr_differential::ci;
use mrtr_differential::program::ast::size;
use mrtr_differential::program::batch::{self, CaseSpec};
use mrtr_differential::program::emit::{self, Mode};
use mrtr_differential::program::generate::{LIMITS, generate};
use mrtr_differential::program::reject;
use proptest::prelude::*;

#[test]
fn the_ci_batch_is_a_pure_function_of_its_seed() {
    let write = || {
        let cases: Vec<CaseSpec> = (0..20)
            .map(|i| CaseSpec::seeded(ci::SEED, i, ci::SCRIPTS).0)
            .collect();
        batch::write(&cases, "determinism").source
    };
    assert_eq!(write(), write());
}

#[test]
fn an_exhausted_stream_is_the_smallest_handler() {
    let program = generate(&[]);
    assert!(
        program.body.len() <= 1,
        "only the closing effect: {:?}",
        program.body
    );
    assert!(program.keys.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_choice_stream_yields_a_bounded_handler_the_macro_analyses(stream in proptest::collection::vec(any::<u32>(), 0..600)) {
        let program = generate(&stream);
        prop_assert!(program.keys.len() <= 3 * LIMITS.ask_sites as usize);
        prop_assert!(size(&program.body) <= 4 * LIMITS.statements as usize + 8);
        let source = emit::handler(&program, "h", Mode::Plain);
        prop_assert!(syn::parse_str::<syn::ImplItemFn>(&source).is_ok(), "the plain form parses:\n{}", source);
        let mismatches = reject::carry_mismatches(&program);
        prop_assert!(mismatches.is_ok(), "the macro analyses it: {:?}", mismatches);
        for m in mismatches.unwrap() {
            prop_assert!(m.under.is_empty(), "no step may leave a live local behind: {:?}\n{}", m, emit::handler(&program, "h", Mode::Lowered));
        }
    }
}
