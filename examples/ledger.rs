//! The pretend back end's idempotency record: an effect made under an idempotency key is
//! recorded with its answer, and the same key later gets that answer back instead of a second
//! effect. With single use on, a round whose instance died mid-round is taken over and runs
//! again (`mrtr::replay`); handing the round's `StepKey` to the back end is what keeps its
//! effect to one.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::replay::IdempotencyKey;

/// Names the directory [`Ledger::shared`] keeps its record in (`Ops::from_env`).
pub const EFFECT_LEDGER_VAR: &str = "MRTR_EFFECT_LEDGER";

/// Where keyed effects are recorded.
#[derive(Clone)]
pub enum Ledger {
    /// In this process: enough for one instance.
    Memory(Arc<Mutex<HashMap<IdempotencyKey, String>>>),
    /// In a directory every instance of a fleet shares, one file per key holding the effect's
    /// line and its answer. A file appears whole or not at all (written aside, then hard-linked
    /// into place, which fails if the key is there), so an instance killed mid-effect leaves
    /// either the effect recorded or nothing, never half.
    Shared(PathBuf),
}

/// What [`Ledger::record_once`] found.
pub enum Recorded {
    /// The effect was recorded now: perform it.
    Now,
    /// Recorded before under the same key, with this answer.
    Before(String),
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::Memory(Arc::default())
    }
}

impl Ledger {
    /// A ledger in `dir`, created if missing.
    pub fn shared(dir: impl Into<PathBuf>) -> io::Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        Ok(Ledger::Shared(dir))
    }

    /// Records `line` (the effect) with `answer` under `key`, unless something is recorded
    /// under `key` already.
    pub fn record_once(
        &self,
        key: IdempotencyKey,
        line: &str,
        answer: &str,
    ) -> io::Result<Recorded> {
        match self {
            Ledger::Memory(done) => {
                let mut done = done.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(answer) = done.get(&key) {
                    return Ok(Recorded::Before(answer.clone()));
                }
                done.insert(key, answer.to_owned());
                Ok(Recorded::Now)
            }
            Ledger::Shared(dir) => {
                static ASIDE: AtomicU64 = AtomicU64::new(0);
                let path = dir.join(key.to_string());
                let aside = dir.join(format!(
                    ".{key}.{}.{}",
                    std::process::id(),
                    ASIDE.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::write(&aside, format!("{line}\n{answer}\n"))?;
                let linked = std::fs::hard_link(&aside, &path);
                let _ = std::fs::remove_file(&aside);
                match linked {
                    Ok(()) => Ok(Recorded::Now),
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                        let text = std::fs::read_to_string(&path)?;
                        Ok(Recorded::Before(
                            text.lines().nth(1).unwrap_or_default().to_owned(),
                        ))
                    }
                    Err(error) => Err(error),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn once(ledger: &Ledger, key: u8, answer: &str) -> Option<String> {
        match ledger
            .record_once(IdempotencyKey([key; 16]), "deploy svc staging plan", answer)
            .expect("the ledger is writable")
        {
            Recorded::Now => None,
            Recorded::Before(answer) => Some(answer),
        }
    }

    #[test]
    fn a_key_records_its_effect_once_and_answers_as_the_first_time() {
        let dir = std::env::temp_dir().join(format!("mrtr-ledger-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for ledger in [Ledger::default(), Ledger::shared(&dir).unwrap()] {
            assert_eq!(once(&ledger, 1, "https://first"), None);
            assert_eq!(
                once(&ledger, 1, "https://second").as_deref(),
                Some("https://first")
            );
            assert_eq!(once(&ledger, 2, "https://other"), None);
        }
        let files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
            .collect();
        assert_eq!(files.len(), 2, "one file per key, nothing left aside");
        assert!(
            files
                .iter()
                .all(|f| f.starts_with("deploy svc staging plan\n"))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
