//! The compile-free oracles over thousands of generated programs (`ci::ORACLE_PROGRAMS`):
//! `#[mrtr_tool]` accepts every valid generated program (or rejects it only with a documented
//! rule), and every step carries exactly the locals live after its ask.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use mrtr_differential::ci;
use mrtr_differential::expected::{KNOWN_REJECTIONS, OVER_CARRIES};
use mrtr_differential::program::batch::CaseSpec;
use mrtr_differential::program::emit::{self, Mode};
use mrtr_differential::program::reject::{self, CarryMismatch};

struct Survey {
    /// Rejection class → the programs rejected with it.
    rejected: BTreeMap<String, Vec<String>>,
    /// Program → its steps whose carried set differs from the oracle's, and its source.
    mismatched: BTreeMap<String, (Vec<CarryMismatch>, String)>,
}

/// One pass over the programs, shared by the tests of this file.
fn survey() -> &'static Survey {
    static SURVEY: OnceLock<Survey> = OnceLock::new();
    SURVEY.get_or_init(|| {
        let mut survey = Survey {
            rejected: BTreeMap::new(),
            mismatched: BTreeMap::new(),
        };
        for index in 0..ci::ORACLE_PROGRAMS {
            let (case, _) = CaseSpec::seeded(ci::SEED, index, 1);
            let messages = reject::rejections(&case.program);
            for m in &messages {
                survey
                    .rejected
                    .entry(reject::classify(m))
                    .or_default()
                    .push(case.name.clone());
            }
            if !messages.is_empty() {
                continue;
            }
            let mismatches = reject::carry_mismatches(&case.program)
                .expect("an accepted handler has carried sets");
            if !mismatches.is_empty() {
                let source = emit::handler(&case.program, &case.name, Mode::Lowered);
                survey
                    .mismatched
                    .insert(case.name.clone(), (mismatches, source));
            }
        }
        survey
    })
}

#[test]
fn the_macro_rejects_generated_programs_only_with_documented_rules() {
    let survey = survey();
    for (class, names) in &survey.rejected {
        println!("rejected x{} ({}..): {class}", names.len(), names[0]);
    }
    let unknown: Vec<&String> = survey
        .rejected
        .keys()
        .filter(|c| !KNOWN_REJECTIONS.iter().any(|k| k.class == c.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "valid generated programs rejected with an unlisted message: {unknown:#?}"
    );
    let readme = include_str!("../../../README.md");
    for known in KNOWN_REJECTIONS {
        assert!(
            readme.contains(known.readme_row),
            "the README has no row `{}` for the rejection `{}`",
            known.readme_row,
            known.class
        );
    }
}

#[test]
fn every_step_carries_exactly_the_locals_live_after_its_ask() {
    let survey = survey();
    let unexpected: Vec<_> = survey
        .mismatched
        .iter()
        .filter(|(name, _)| !OVER_CARRIES.contains(&name.as_str()))
        .collect();
    for (name, (mismatches, source)) in &unexpected {
        eprintln!("{name}: {mismatches:?}\n{source}");
    }
    let fixed: Vec<&&str> = OVER_CARRIES
        .iter()
        .filter(|n| !survey.mismatched.contains_key(**n))
        .collect();
    println!(
        "{} of {} programs over-carry (known)",
        survey.mismatched.len() - unexpected.len(),
        ci::ORACLE_PROGRAMS
    );
    assert!(
        unexpected.is_empty(),
        "{} programs carry other than the live locals (above)",
        unexpected.len()
    );
    assert!(
        fixed.is_empty(),
        "these programs now carry exactly their live locals: remove them from expected::OVER_CARRIES: {fixed:?}"
    );
}
