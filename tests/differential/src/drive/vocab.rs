//! Everything a generated handler body names besides its own locals: the elicited forms, the
//! carried struct, the tool's arguments, the `?` error and the helpers. Generated code does
//! `use mrtr_differential::drive::vocab::*;`.

pub use mrtr::Answer;
pub use rmcp::ErrorData;
pub use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::schemars;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::program::ast::Form;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
pub struct Num {
    pub n: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
pub struct Word {
    pub w: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
pub struct Flag {
    pub ok: bool,
}

/// A carried local with several fields, so a handler can move one out and carry the rest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rec {
    pub label: String,
    pub tags: Vec<String>,
    pub n: u32,
}

/// The tool's arguments: a handler can move `note`, `items` or `label` out of `args`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Args {
    pub note: Option<String>,
    pub items: Vec<String>,
    pub count: u32,
    pub label: String,
}

/// The error `?` propagates, converted into the tool's `ErrorData` by `From`.
#[derive(Debug)]
pub struct Oops(pub u32);

impl From<Oops> for ErrorData {
    fn from(oops: Oops) -> Self {
        ErrorData::invalid_request(format!("oops {}", oops.0), None)
    }
}

/// Fails for some values, so `?` sometimes leaves the handler early.
pub fn checked(n: u32) -> Result<u32, Oops> {
    if n % 4 == 3 { Err(Oops(n)) } else { Ok(n) }
}

/// Concatenation truncated to 12 characters: values stay small however long a loop runs.
pub fn cat(a: String, b: String) -> String {
    format!("{a}{b}").chars().take(12).collect()
}

pub fn reply(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

const WORDS: [&str; 5] = ["red", "tan", "ok", "blue", "x"];

/// The `content` of an accepted answer with this choice.
pub fn content(form: Form, choice: u32) -> Value {
    match form {
        Form::Num => json!({ "n": choice % 6 }),
        Form::Word => json!({ "w": WORDS[(choice % 5) as usize] }),
        Form::Flag => json!({ "ok": choice.is_multiple_of(2) }),
    }
}

/// A form the reference can answer in place.
pub trait Scripted: serde::de::DeserializeOwned {
    const FORM: Form;
}

impl Scripted for Num {
    const FORM: Form = Form::Num;
}

impl Scripted for Word {
    const FORM: Form = Form::Word;
}

impl Scripted for Flag {
    const FORM: Form = Form::Flag;
}
