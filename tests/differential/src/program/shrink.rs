//! Shrinking a failing program by editing its choice stream (Hypothesis-style): every edited
//! stream still generates a valid program, so no candidate is wasted on a syntax or type error.
//!
//! Candidates are judged in batches (`holds` sees many at once) because the hunt pays one
//! compilation per batch, not per candidate; `holds` must check the failure's *signature*, or
//! the shrinker wanders off to another bug.

use std::collections::HashSet;

use super::ast::{Program, size};
use super::emit::{self, Mode};
use super::generate::{LIMITS, generate_with};

/// What a candidate costs: statements first, then source length, then the stream itself.
fn cost(stream: &[u32]) -> (usize, usize, usize, u64) {
    let (program, _) = generate_with(stream, &LIMITS);
    let text = emit::handler(&program, "h", Mode::Lowered);
    (
        size(&program.body),
        text.len(),
        stream.len(),
        stream.iter().map(|&c| u64::from(c)).sum(),
    )
}

/// The stream cut to what the generator reads.
pub fn trim(stream: &[u32]) -> Vec<u32> {
    let (_, consumed) = generate_with(stream, &LIMITS);
    stream[..consumed].to_vec()
}

fn candidates(stream: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for width in [32, 16, 8, 4, 2, 1] {
        for start in (0..stream.len()).step_by(width.max(1)) {
            let mut c = stream.to_vec();
            c.drain(start..(start + width).min(stream.len()));
            out.push(c);
        }
    }
    for i in 0..stream.len() {
        for value in [0, stream[i] / 2, stream[i].saturating_sub(1)] {
            if value < stream[i] {
                let mut c = stream.to_vec();
                c[i] = value;
                out.push(c);
            }
        }
    }
    out
}

pub struct Shrunk {
    pub program: Program,
    pub evaluated: usize,
    pub steps: usize,
}

/// Greedy: from the current stream, judge its smaller distinct candidates cheapest first, in
/// batches of `batch`, and move to the cheapest that still fails; stop when none does. Then
/// drop the effects the failure does not need ([`super::reduce::drop_effects`]).
pub fn shrink(
    start: &[u32],
    batch: usize,
    max_steps: usize,
    mut holds: impl FnMut(&[Program]) -> Vec<bool>,
) -> Shrunk {
    let mut best = trim(start);
    let mut best_cost = cost(&best);
    let mut evaluated = 0;
    let mut steps = 0;
    'search: while steps < max_steps {
        let mut seen: HashSet<String> = HashSet::new();
        seen.insert(emit::handler(
            &generate_with(&best, &LIMITS).0,
            "h",
            Mode::Lowered,
        ));
        let mut pool: Vec<(_, Vec<u32>)> = candidates(&best)
            .into_iter()
            .map(|c| trim(&c))
            .filter(|c| {
                seen.insert(emit::handler(
                    &generate_with(c, &LIMITS).0,
                    "h",
                    Mode::Lowered,
                ))
            })
            .map(|c| (cost(&c), c))
            .filter(|(k, _)| *k < best_cost)
            .collect();
        pool.sort();
        for chunk in pool.chunks(batch.max(1)) {
            let streams: Vec<Vec<u32>> = chunk.iter().map(|(_, c)| c.clone()).collect();
            let programs: Vec<Program> = streams
                .iter()
                .map(|s| generate_with(s, &LIMITS).0)
                .collect();
            let verdicts = holds(&programs);
            evaluated += streams.len();
            if let Some(i) = verdicts.iter().position(|&v| v) {
                best = streams[i].clone();
                best_cost = chunk[i].0;
                steps += 1;
                continue 'search;
            }
        }
        break;
    }
    let program = super::reduce::drop_effects(generate_with(&best, &LIMITS).0, |programs| {
        evaluated += programs.len();
        holds(programs)
    });
    Shrunk {
        program,
        evaluated,
        steps,
    }
}
