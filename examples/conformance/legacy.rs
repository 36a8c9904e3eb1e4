//! The fixtures of the 2025-era scenarios `tools-call-elicitation`, `tools-call-sampling`,
//! `elicitation-sep1034-defaults` and `elicitation-sep1330-enums`.
//!
//! The suite runs these on an `initialize` session, so each `ask!` goes out as a real
//! server-initiated request and is awaited in place; a 2026-07-28 client gets the same
//! questions as `input_required` rounds. The forms are derived from Rust types.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, yet these scenarios exercise it

use mrtr::prelude::*;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};

use crate::Conformance;
use crate::input_required::{question, sampled_text, text};

#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ElicitationArgs {
    /// The message to show the user
    message: String,
}

#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SamplingArgs {
    /// The prompt to send to the LLM
    prompt: String,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// SEP-1034: every primitive field kind, each with a default the client pre-fills.
#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct Profile {
    #[elicit(default = "John Doe")]
    name: String,
    #[elicit(default = 30)]
    age: i64,
    #[elicit(default = 95.5)]
    score: f64,
    #[elicit(default = "active")]
    status: AccountStatus,
    #[elicit(default = true)]
    verified: bool,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum AccountStatus {
    Active,
    Inactive,
    Pending,
}

/// SEP-1330: the five enum shapes an elicitation form may use.
#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "camelCase")]
pub struct EnumChoices {
    untitled_single: PlainOption,
    titled_single: TitledValue,
    legacy_enum: LegacyOption,
    untitled_multi: Vec<PlainOption>,
    titled_multi: Vec<TitledChoice>,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum PlainOption {
    Option1,
    Option2,
    Option3,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum TitledValue {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

/// Titles carried the pre-SEP-1330 way, as a parallel `enumNames` array.
#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
#[elicit(legacy_enum_names)]
pub enum LegacyOption {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum TitledChoice {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

/// `action=..., content=...` as the 2025-era scenarios describe their result text.
fn describe<T: Serialize>(answer: &Answer<T>) -> String {
    match answer {
        Answer::Accept(content) => {
            let content = serde_json::to_string(content).unwrap_or_else(|_| "{}".to_owned());
            format!("action=accept, content={content}")
        }
        Answer::Decline => "action=decline, content={}".to_owned(),
        Answer::Cancel => "action=cancel, content={}".to_owned(),
    }
}

#[tool_router(router = legacy_tools, vis = "pub(crate)")]
impl Conformance {
    #[mrtr_tool]
    #[tool(description = "Asks the user for a username and an email address")]
    async fn test_elicitation(
        &self,
        Parameters(args): Parameters<ElicitationArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let contact = ask!(contact: elicit::<Contact>(args.message));
        Ok(text(format!("User response: {}", describe(&contact))))
    }

    #[mrtr_tool]
    #[tool(description = "Sends the prompt to the client's model")]
    async fn test_sampling(
        &self,
        Parameters(args): Parameters<SamplingArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let reply = ask!(completion: sample(question(args.prompt, 100)));
        Ok(match reply {
            Answer::Accept(reply) => text(format!("LLM response: {}", sampled_text(&reply))),
            Answer::Decline | Answer::Cancel => {
                text("LLM response: (none; the client refused to sample)")
            }
        })
    }

    #[mrtr_tool]
    #[tool(description = "Asks for a profile whose every field has a default (SEP-1034)")]
    async fn test_elicitation_sep1034_defaults(&self) -> Result<CallToolResult, ErrorData> {
        let profile = ask!(profile: elicit::<Profile>("Review your profile"));
        Ok(text(format!(
            "Elicitation completed: {}",
            describe(&profile)
        )))
    }

    #[mrtr_tool]
    #[tool(description = "Asks for one answer of each enum shape (SEP-1330)")]
    async fn test_elicitation_sep1330_enums(&self) -> Result<CallToolResult, ErrorData> {
        let choices = ask!(choices: elicit::<EnumChoices>("Pick your options"));
        Ok(text(format!(
            "Elicitation completed: {}",
            describe(&choices)
        )))
    }
}
