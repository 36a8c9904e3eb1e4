//! The CI verdict on a compiled batch: every run agrees, except the listed known defects —
//! and those must still fail, so the list is emptied as defects are fixed.

use crate::expected::DISAGREES;

use super::case::{Case, PlainCall};
use super::compare::check_batch;
use super::eras::MakeServer;

pub async fn assert_agreement<S: Send + Sync + 'static>(
    cases: &'static [Case],
    make: MakeServer<S>,
    plain: PlainCall,
) {
    let run = check_batch(cases, make, plain).await;
    let expected = |name: &str| DISAGREES.iter().any(|e| e.case == name);
    let unexpected: Vec<_> = run.failures.iter().filter(|f| !expected(f.case)).collect();
    let fixed: Vec<&str> = DISAGREES
        .iter()
        .filter(|e| cases.iter().any(|c| c.name == e.case))
        .filter(|e| !run.failures.iter().any(|f| f.case == e.case))
        .map(|e| e.case)
        .collect();
    println!(
        "{} handlers x scripts = {} runs, {} disagreements ({} expected)",
        cases.len(),
        run.runs,
        run.failures.len(),
        run.failures.len() - unexpected.len()
    );
    for failure in &unexpected {
        eprintln!("{}", failure.report);
    }
    assert!(
        unexpected.is_empty(),
        "{} runs disagree with the reference (reports above)",
        unexpected.len()
    );
    assert!(
        fixed.is_empty(),
        "these cases now agree: remove them from expected::DISAGREES: {fixed:?}"
    );
}
