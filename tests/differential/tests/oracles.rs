//! The compile-free oracles over thousands of generated programs: what `#[mrtr_tool]` rejects
//! (valid programs built from supported constructs should not be), and whether every step
//! carries exactly the locals live after its ask.

use std::collections::BTreeMap;

use mrtr_differential::ci;
use mrtr_differential::program::batch::CaseSpec;
use mrtr_differential::program::emit::{self, Mode};
use mrtr_differential::program::reject;

#[test]
fn oracle_survey() {
    let mut rejected: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut mismatched = Vec::new();
    for index in 0..ci::ORACLE_PROGRAMS {
        let (case, _) = CaseSpec::seeded(ci::SEED, index, 1);
        let messages = reject::rejections(&case.program);
        if !messages.is_empty() {
            for m in messages {
                let entry = rejected
                    .entry(reject::classify(&m))
                    .or_insert((0, case.name.clone()));
                entry.0 += 1;
            }
            continue;
        }
        match reject::carry_mismatches(&case.program) {
            Ok(m) if m.is_empty() => {}
            Ok(m) => mismatched.push((
                case.name.clone(),
                m,
                emit::handler(&case.program, &case.name, Mode::Lowered),
            )),
            Err(e) => mismatched.push((case.name.clone(), vec![], format!("{e:?}"))),
        }
    }
    for (class, (n, first)) in &rejected {
        println!("REJECTED x{n} (first {first}): {class}");
    }
    println!("MISMATCHED: {}", mismatched.len());
    for (name, m, src) in mismatched.iter().take(3) {
        println!("{name}: {m:?}\n{src}");
    }
}
