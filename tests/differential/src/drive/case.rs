//! One generated handler as the compiled batch sees it, and what one run of it observed.

use std::future::Future;
use std::pin::Pin;

use crate::program::ast::Form;
use crate::program::script::{Reply, Script};

use super::reference::Reference;
use super::vocab::{Args, CallToolResult, ErrorData};

/// A handler of a compiled batch: its tool name, the arguments it is called with, its ask keys,
/// the scripts it runs under and its source (printed with any failure).
pub struct Case {
    pub name: &'static str,
    pub args: &'static str,
    pub keys: &'static [(&'static str, Form)],
    pub scripts: &'static [Script],
    pub max_asks_per_key: u32,
    pub source: &'static str,
}

impl Case {
    pub fn form_of(&self, key: &str) -> Option<Form> {
        self.keys.iter().find(|(k, _)| *k == key).map(|(_, f)| *f)
    }

    pub fn arguments(&self) -> serde_json::Value {
        serde_json::from_str(self.args).expect("generated arguments are JSON")
    }
}

/// The plain reference of every handler of a batch, by tool name.
pub type PlainCall = fn(
    Reference,
    &'static str,
    Args,
) -> Pin<Box<dyn Future<Output = Result<CallToolResult, ErrorData>>>>;

/// One ask the client saw: its key (from the message, which names it) and its message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Asked {
    pub key: String,
    pub message: String,
}

/// What one run observed, in the terms all three runs share.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The result text, or the JSON-RPC error (`rpc error <code>: <message>`).
    pub outcome: String,
    pub effects: Vec<String>,
    /// The asks, one group per ask-site execution (one `input_required` round), sorted
    /// within a group (a multi-key ask's requests have no order).
    pub rounds: Vec<Vec<Asked>>,
    /// `input_required` rounds the server answered with.
    pub input_required: usize,
    /// Anything else the run noticed that is wrong on its own (a legacy call that saw
    /// `input_required`, a message that does not name its key, a round limit hit).
    pub anomalies: Vec<String>,
}

/// The answer a script gives, as the reference recorded it: for the report.
#[derive(Clone, Debug)]
pub struct Given {
    pub key: String,
    pub nth: u32,
    pub reply: Reply,
}

/// `[k3] text` → `k3`.
pub fn key_in(message: &str) -> Option<&str> {
    message.strip_prefix('[')?.split_once(']').map(|(k, _)| k)
}
