//! Effects per flow, from the instances' effect logs (`MRTR_EFFECT_LOG`, one file each, kept
//! across restarts and kills since every line is written before the response leaves) and from
//! the effect ledger they share (`MRTR_EFFECT_LEDGER`, the `ledger` directory beside the logs:
//! one file per idempotency key, its first line the effect, for effects made under a round's
//! key).

use std::collections::HashMap;
use std::path::Path;

use crate::flows::Kind;

#[derive(Debug, Default)]
pub struct EffectCount {
    /// Completed deploy and release-notes flows whose effect line appears exactly once.
    pub exactly_once: usize,
    /// Completed such flows with no effect line.
    pub missing: usize,
    /// Effect lines beyond the first, over every flow that ran (completed or not).
    pub duplicates: usize,
    /// `record_summary` lines, against completed summarize flows (not named per flow).
    pub summaries: usize,
    /// Runs of a round whose effect was already recorded under its key (`already ..` lines):
    /// rounds the SIGKILL stranded after their effect, answered from the ledger.
    pub absorbed: usize,
}

/// Counts the lines of every `*.log` in `dir` and of its ledger against the flows that ran.
pub fn count(
    dir: &Path,
    started: &[(Kind, String)],
    completed: &[(Kind, String)],
) -> std::io::Result<EffectCount> {
    let mut lines: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "log") {
            lines.extend(std::fs::read_to_string(&path)?.lines().map(str::to_owned));
        }
    }
    let ledger = dir.join("ledger");
    if ledger.is_dir() {
        for entry in std::fs::read_dir(&ledger)? {
            let entry = entry?;
            // Files starting with a dot are being written aside, not yet recorded.
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let text = std::fs::read_to_string(entry.path())?;
            lines.extend(text.lines().next().map(str::to_owned));
        }
    }
    // The flow a line belongs to is its second word (`deploy svc-<id> ..`).
    let mut per_subject: HashMap<(&str, &str), usize> = HashMap::new();
    let mut summaries = 0;
    let mut absorbed = 0;
    for line in &lines {
        let mut words = line.split(' ');
        match (words.next(), words.next()) {
            (Some(verb @ ("deploy" | "publish_notes")), Some(subject)) => {
                *per_subject.entry((verb, subject)).or_default() += 1;
            }
            (Some("record_summary"), _) => summaries += 1,
            (Some("already"), _) => absorbed += 1,
            _ => {}
        }
    }
    let times = |kind: Kind, id: &str| -> usize {
        kind.effect_prefix(id).map_or(0, |prefix| {
            let mut words = prefix.split(' ');
            let key = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            per_subject.get(&key).copied().unwrap_or(0)
        })
    };
    let mut count = EffectCount {
        summaries,
        absorbed,
        ..EffectCount::default()
    };
    for (kind, id) in started {
        count.duplicates += times(*kind, id).saturating_sub(1);
    }
    for (kind, id) in completed {
        if kind.effect_prefix(id).is_none() {
            continue;
        }
        match times(*kind, id) {
            0 => count.missing += 1,
            1 => count.exactly_once += 1,
            _ => {}
        }
    }
    Ok(count)
}
