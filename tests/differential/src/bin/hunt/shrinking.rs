//! Minimising a finding: the choice-stream shrinker with a judge per kind of finding. The
//! compile-free ones are judged in process; compile errors and disagreements by building a
//! scratch crate of up to [`BATCH`] candidates at a time.

use mrtr_differential::program::ast::Program;
use mrtr_differential::program::batch::{CaseSpec, STREAM_LEN};
use mrtr_differential::program::choice::{program_seed, seeded_stream};
use mrtr_differential::program::emit::{self, Mode};
use mrtr_differential::program::reject::CarryMismatch;
use mrtr_differential::program::shrink::shrink;

use super::scratch::Scratch;

/// Candidates per scratch build: one build judges them all.
const BATCH: usize = 120;
const MAX_STEPS_COMPILED: usize = 60;
const MAX_STEPS_IN_PROCESS: usize = 400;

pub fn carry_signature(m: &CarryMismatch) -> String {
    match (m.over.is_empty(), m.under.is_empty()) {
        (false, true) => "over-carries (a local dead after the ask is carried)".into(),
        (true, false) => "under-carries (a local live after the ask is not carried)".into(),
        _ => "over- and under-carries at one step".into(),
    }
}

fn index_of(case: &str) -> usize {
    case.trim_start_matches('h')
        .parse()
        .expect("hunt cases are named h<index>")
}

pub fn seeded_stream_of(seed: u64, case: &str) -> Vec<u32> {
    seeded_stream(program_seed(seed, index_of(case)), STREAM_LEN)
}

pub fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("      {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn show(program: &Program) -> String {
    emit::handler(program, "repro", Mode::Lowered)
}

pub fn in_process(stream: &[u32], holds: impl Fn(&Program) -> bool) -> String {
    let shrunk = shrink(stream, usize::MAX, MAX_STEPS_IN_PROCESS, |candidates| {
        candidates.iter().map(&holds).collect()
    });
    indent(&format!(
        "minimised in {} steps ({} candidates):\n{}",
        shrunk.steps,
        shrunk.evaluated,
        show(&shrunk.program)
    ))
}

fn candidates_of(
    seed: u64,
    case: &str,
    programs: &[Program],
    script: Option<u64>,
) -> Vec<CaseSpec> {
    let seed = program_seed(seed, index_of(case));
    programs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut spec = CaseSpec::from_program(format!("c{i}"), p.clone(), seed, 1);
            if let Some(script) = script {
                spec.scripts = vec![script];
            }
            spec
        })
        .collect()
}

/// The errors of `code` each candidate has (empty: it does not fail that way).
fn compile_errors_of(seed: u64, case: &str, programs: &[Program], code: &str) -> Vec<Vec<String>> {
    let mut scratch = Scratch::new(
        &format!("shrink-{case}"),
        candidates_of(seed, case, programs, None),
        2,
    );
    let errors = scratch.compile_errors();
    (0..programs.len())
        .map(|i| {
            let errors = errors
                .get(&format!("c{i}"))
                .map(Vec::as_slice)
                .unwrap_or_default();
            errors
                .iter()
                .filter(|e| e.code == code)
                .map(|e| e.rendered.clone())
                .collect()
        })
        .collect()
}

pub fn compiled_compile_error(seed: u64, case: &str, stream: &[u32], code: &str) -> String {
    let shrunk = shrink(stream, BATCH, MAX_STEPS_COMPILED, |programs| {
        compile_errors_of(seed, case, programs, code)
            .iter()
            .map(|e| !e.is_empty())
            .collect()
    });
    let rendered = compile_errors_of(seed, case, std::slice::from_ref(&shrunk.program), code)
        .concat()
        .join("\n");
    let program = shrunk.program;
    indent(&format!(
        "minimised in {} steps ({} candidates built):\n{}\nrustc:\n{rendered}",
        shrunk.steps,
        shrunk.evaluated,
        show(&program)
    ))
}

/// The report of each candidate's run that fails with `signature` (`None`: it does not).
fn disagreements_of(
    seed: u64,
    case: &str,
    programs: &[Program],
    script: u64,
    signature: &str,
) -> Vec<Option<String>> {
    let mut scratch = Scratch::new(
        &format!("shrink-{case}"),
        candidates_of(seed, case, programs, Some(script)),
        2,
    );
    scratch.build();
    let failures = scratch.run();
    (0..programs.len())
        .map(|i| {
            let name = format!("c{i}");
            failures
                .iter()
                .find(|f| f.0 == name && f.2 == signature)
                .map(|f| f.3.clone())
        })
        .collect()
}

pub fn compiled_disagreement(
    seed: u64,
    case: &str,
    stream: &[u32],
    script: u64,
    signature: &str,
) -> String {
    let shrunk = shrink(stream, BATCH, MAX_STEPS_COMPILED, |programs| {
        disagreements_of(seed, case, programs, script, signature)
            .iter()
            .map(Option::is_some)
            .collect()
    });
    let report = disagreements_of(
        seed,
        case,
        std::slice::from_ref(&shrunk.program),
        script,
        signature,
    )
    .pop()
    .flatten()
    .unwrap_or_default();
    indent(&format!(
        "minimised in {} steps ({} candidates built); the minimised run:\n{report}",
        shrunk.steps, shrunk.evaluated
    ))
}
