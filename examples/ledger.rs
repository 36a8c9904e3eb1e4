//! The pretend back end's idempotency record: an effect made under an idempotency key is
//! recorded with its answer, and the same key later gets that answer back instead of a second
//! effect. With single use on, a round whose instance died mid-round is taken over and runs
//! again (`mrtr::replay`); handing the round's `StepKey` to the back end is what keeps its
//! effect to one.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mrtr::replay::IdempotencyKey;

/// Names the directory [`Ledger::shared`] keeps its record in (`Ops::from_env`).
pub const EFFECT_LEDGER_VAR: &str = "MRTR_EFFECT_LEDGER";

/// Where keyed effects are recorded.
#[derive(Clone)]
pub enum Ledger {
    /// In this process: enough for one instance.
    Memory(Arc<Mutex<Remembered>>),
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

/// The in-process record: answers by key, and the keys in the order they were recorded, so
/// that a long-running server forgets a key once no retry can name it again.
#[derive(Default)]
pub struct Remembered {
    answers: HashMap<IdempotencyKey, String>,
    recorded: VecDeque<(Instant, IdempotencyKey)>,
    /// How long a key is kept; `None` keeps every key (tests that inspect the record).
    forget_after: Option<Duration>,
}

impl Remembered {
    fn forget_expired(&mut self, now: Instant) {
        let Some(keep) = self.forget_after else {
            return;
        };
        while let Some(&(at, key)) = self.recorded.front() {
            if now.duration_since(at) < keep {
                break;
            }
            self.answers.remove(&key);
            self.recorded.pop_front();
        }
    }
}

impl Ledger {
    /// A ledger in this process that forgets a key `forget_after` after recording it.
    ///
    /// A key is the step key of a presented `requestState`, so it can only come back while
    /// that state still opens: give the state's lifetime plus the clocks' drift across the
    /// fleet. Without this, a server that runs for days would keep every key it ever saw.
    pub fn forgetting(forget_after: Duration) -> Self {
        Ledger::Memory(Arc::new(Mutex::new(Remembered {
            forget_after: Some(forget_after),
            ..Remembered::default()
        })))
    }

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
                let now = Instant::now();
                done.forget_expired(now);
                if let Some(answer) = done.answers.get(&key) {
                    return Ok(Recorded::Before(answer.clone()));
                }
                done.answers.insert(key, answer.to_owned());
                done.recorded.push_back((now, key));
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

    #[test]
    fn a_forgetting_ledger_keeps_a_key_for_its_time_and_no_longer() {
        let ledger = Ledger::forgetting(Duration::from_millis(200));
        assert_eq!(once(&ledger, 1, "https://first"), None);
        assert_eq!(
            once(&ledger, 1, "https://again").as_deref(),
            Some("https://first"),
            "inside its time a key absorbs the retry"
        );
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(once(&ledger, 2, "https://other"), None);
        let Ledger::Memory(record) = &ledger else {
            unreachable!("a forgetting ledger is in memory")
        };
        let record = record.lock().unwrap();
        assert_eq!(record.answers.len(), 1, "the expired key is gone");
        assert_eq!(record.recorded.len(), 1);
        assert!(record.answers.contains_key(&IdempotencyKey([2; 16])));
    }

    #[test]
    fn the_default_ledger_keeps_every_key() {
        let ledger = Ledger::default();
        for key in 0..=255 {
            assert_eq!(once(&ledger, key, "https://first"), None);
        }
        for key in 0..=255 {
            assert!(once(&ledger, key, "https://again").is_some());
        }
    }
}
