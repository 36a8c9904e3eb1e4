//! The reference run: the handler's body as a plain `async fn`, compiled by rustc, each ask an
//! awaited answer from the script. Whatever this does is what the lowering must do.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use mrtr::Answer;
use mrtr::testing::{Effects, text_of};

use crate::program::script::{self, Reply, Script};

use super::case::{Asked, Case, Given, Observed, PlainCall};
use super::vocab::{CallToolResult, ErrorData, Scripted, content};

#[derive(Default)]
struct Record {
    asked_before: BTreeMap<String, u32>,
    rounds: Vec<Vec<Asked>>,
    given: Vec<Given>,
}

/// What a reference body calls `self.` on (through the batch's `Plain` wrapper).
#[derive(Clone)]
pub struct Reference {
    script: Script,
    effects: Effects,
    record: Arc<Mutex<Record>>,
}

impl Reference {
    pub fn log(&self, entry: String) {
        self.effects.record(entry);
    }

    /// The first (or only) key of an ask: one new `input_required` round.
    pub async fn ask_in_new_round<T: Scripted>(&self, key: &str, message: String) -> Answer<T> {
        self.lock().rounds.push(Vec::new());
        self.ask_in_same_round(key, message).await
    }

    /// A further key of a multi-key ask, asked in the same round.
    pub async fn ask_in_same_round<T: Scripted>(&self, key: &str, message: String) -> Answer<T> {
        let mut record = self.lock();
        let nth = {
            let count = record.asked_before.entry(key.to_owned()).or_insert(0);
            *count += 1;
            *count - 1
        };
        let reply = script::answer(self.script, key, nth);
        record.given.push(Given {
            key: key.to_owned(),
            nth,
            reply,
        });
        let round = record.rounds.last_mut().expect("a round was opened");
        round.push(Asked {
            key: key.to_owned(),
            message,
        });
        round.sort();
        match reply {
            Reply::Accept(choice) => Answer::Accept(
                serde_json::from_value(content(T::FORM, choice))
                    .expect("scripted content decodes as its form"),
            ),
            Reply::Decline => Answer::Decline,
            Reply::Cancel => Answer::Cancel,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The result as one comparable line, as every era reports it.
pub fn outcome_line(result: &Result<CallToolResult, ErrorData>) -> String {
    match result {
        Ok(result) if result.is_error == Some(true) => format!("tool error: {}", text_of(result)),
        Ok(result) => text_of(result),
        Err(error) => format!("rpc error {}: {}", error.code.0, error.message),
    }
}

/// Runs the plain body under `script`; also returns the answers it was given, for the report.
pub async fn run_reference(
    case: &Case,
    script: Script,
    plain: PlainCall,
) -> (Observed, Vec<Given>) {
    let reference = Reference {
        script,
        effects: Effects::default(),
        record: Arc::default(),
    };
    let args = serde_json::from_str(case.args).expect("generated arguments decode as Args");
    let result = plain(reference.clone(), case.name, args).await;
    let record = std::mem::take(&mut *reference.lock());
    let observed = Observed {
        outcome: outcome_line(&result),
        effects: reference.effects.all(),
        input_required: record.rounds.len(),
        rounds: record.rounds,
        anomalies: Vec::new(),
    };
    (observed, record.given)
}
