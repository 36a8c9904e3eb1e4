//! The fixtures of the fourteen `input-required-result-*` scenarios (SEP-2322, 2026-07-28).
//!
//! Each is the handler a legacy server would have written, with `ask!` where it used to await
//! the client. Keys follow the scenario descriptions; the suite answers the first key of each
//! round, so a round asks for exactly what the step needs.

// Sampling and roots are deprecated by SEP-2577, yet scenarios 2, 3 and 5 require them
// (conformance issue #439).
#![allow(deprecated)]

use mrtr::prelude::*;
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, CreateMessageResult, GetPromptResult,
    ListRootsResult, PromptMessage, Role, SamplingMessage,
};
use rmcp::{ErrorData, prompt, prompt_router, tool, tool_router};
use serde::{Deserialize, Serialize};

use crate::Conformance;

#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct UserName {
    /// Your name
    name: String,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct Confirmation {
    /// Confirm to continue
    pub ok: bool,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct FavouriteColor {
    /// Your favourite colour
    color: String,
}

#[derive(Debug, Serialize, Deserialize, Elicit)]
pub struct PromptContext {
    /// What the prompt should be about
    context: String,
}

pub(crate) fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

pub(crate) fn question(prompt: impl Into<String>, max_tokens: u32) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], max_tokens)
}

pub(crate) fn sampled_text(result: &CreateMessageResult) -> String {
    result
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map_or_else(String::new, |t| t.text.clone())
}

fn root_uris(roots: &ListRootsResult) -> String {
    roots
        .roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[tool_router(router = input_required_tools, vis = "pub(crate)")]
impl Conformance {
    /// Stateless on purpose: scenarios 7, 13 and 14 call it with answers but no
    /// `requestState`, so it completes whenever `user_name` holds a valid answer.
    #[mrtr_tool]
    #[tool(description = "Asks for the user's name (elicitation) and greets them")]
    async fn test_input_required_result_elicitation(&self) -> Result<CallToolResult, ErrorData> {
        let name = ask!(user_name: elicit::<UserName>("What is your name?"));
        Ok(match name {
            Answer::Accept(UserName { name }) => text(format!("Hello, {name}!")),
            Answer::Decline => text("The user declined to give a name."),
            Answer::Cancel => text("The user dismissed the question."),
        })
    }

    #[mrtr_tool]
    #[tool(description = "Asks the client's model a question (sampling) and returns the answer")]
    async fn test_input_required_result_sampling(&self) -> Result<CallToolResult, ErrorData> {
        let reply = ask!(capital_question: sample(question("What is the capital of France?", 100)));
        Ok(match reply {
            Answer::Accept(reply) => text(format!("The model said: {}", sampled_text(&reply))),
            Answer::Decline | Answer::Cancel => text("The client did not sample."),
        })
    }

    #[mrtr_tool]
    #[tool(description = "Lists the client's roots")]
    async fn test_input_required_result_list_roots(&self) -> Result<CallToolResult, ErrorData> {
        let roots = ask!(client_roots: roots());
        Ok(match roots {
            Answer::Accept(roots) => text(format!("Client roots: {}", root_uris(&roots))),
            Answer::Decline | Answer::Cancel => text("The client did not list its roots."),
        })
    }

    /// The answer only counts together with the sealed `requestState` of the round that asked
    /// for it; reaching the text below means the runtime verified that state.
    #[mrtr_tool]
    #[tool(description = "Asks for a confirmation and checks the round's requestState")]
    async fn test_input_required_result_request_state(&self) -> Result<CallToolResult, ErrorData> {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        let confirmed = ask!(confirm: elicit::<Confirmation>("Continue?"));
        Ok(match confirmed {
            Answer::Accept(Confirmation { ok: true }) => text(format!(
                "state-ok: confirmed; the dialogue started at {started}"
            )),
            _ => text(format!(
                "state-ok: not confirmed; the dialogue started at {started}"
            )),
        })
    }

    #[mrtr_tool]
    #[tool(description = "Asks for a name, a greeting and the roots in one round")]
    async fn test_input_required_result_multiple_inputs(
        &self,
    ) -> Result<CallToolResult, ErrorData> {
        let (name, greeting, roots) = ask!(
            user_name: elicit::<UserName>("What is your name?"),
            greeting: sample(question("Write a one-line greeting.", 50)),
            client_roots: roots(),
        );
        let name = match name {
            Answer::Accept(UserName { name }) => name,
            _ => "stranger".to_owned(),
        };
        let greeting = match greeting {
            Answer::Accept(reply) => sampled_text(&reply),
            _ => "Hello".to_owned(),
        };
        let roots = match roots {
            Answer::Accept(roots) => root_uris(&roots),
            _ => "none".to_owned(),
        };
        Ok(text(format!("{greeting} {name} (roots: {roots})")))
    }

    /// Two dependent rounds: the second question is only asked once the first is answered,
    /// and the name from round one travels to round two inside `requestState`.
    #[mrtr_tool]
    #[tool(description = "Asks for a name, then for a favourite colour")]
    async fn test_input_required_result_multi_round(&self) -> Result<CallToolResult, ErrorData> {
        let Answer::Accept(UserName { name }) =
            ask!(step1: elicit::<UserName>("What is your name?"))
        else {
            return Ok(text("No name, no colour."));
        };
        let color = ask!(step2: elicit::<FavouriteColor>(format!("{name}, what is your favourite colour?")));
        Ok(match color {
            Answer::Accept(FavouriteColor { color }) => text(format!("{name} likes {color}.")),
            _ => text(format!("{name} kept their colour to themselves.")),
        })
    }

    /// Same shape as the request-state fixture: a tampered token must be refused (-32602)
    /// before this body runs again.
    #[mrtr_tool]
    #[tool(description = "Asks for a confirmation; a tampered requestState is rejected")]
    async fn test_input_required_result_tampered_state(&self) -> Result<CallToolResult, ErrorData> {
        let confirmed = ask!(confirm: elicit::<Confirmation>("Continue?"));
        Ok(match confirmed {
            Answer::Accept(Confirmation { ok: true }) => text("Confirmed."),
            _ => text("Not confirmed."),
        })
    }

    /// Asks only what this request's client declared it can answer: a form when it can show
    /// one, a sampled answer otherwise. Asking anyway would be -32021, which the
    /// capability-check scenario counts as a failure.
    #[mrtr_tool]
    #[tool(description = "Asks through whichever of elicitation or sampling the client supports")]
    async fn test_input_required_result_capabilities(
        &self,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if caps.elicitation_form() {
            let name = ask!(elicit_input: elicit::<UserName>("What is your name?"));
            Ok(match name {
                Answer::Accept(UserName { name }) => text(format!("Asked by form: {name}")),
                _ => text("Asked by form: no answer."),
            })
        } else if caps.sampling() {
            let reply = ask!(sample_input: sample(question("Make up a name.", 20)));
            Ok(match reply {
                Answer::Accept(reply) => text(format!("Asked the model: {}", sampled_text(&reply))),
                _ => text("Asked the model: no answer."),
            })
        } else {
            Ok(text(
                "This client can neither show a form nor sample; nothing to ask.",
            ))
        }
    }
}

#[prompt_router(router = "input_required_prompts", vis = "pub(crate)")]
impl Conformance {
    /// `input_required` is not only for tools: `prompts/get` may ask too (scenario 8).
    #[mrtr_tool]
    #[prompt(
        name = "test_input_required_result_prompt",
        description = "Asks what the prompt should be about"
    )]
    async fn test_input_required_result_prompt(&self) -> Result<GetPromptResult, ErrorData> {
        let context =
            ask!(user_context: elicit::<PromptContext>("What should the prompt be about?"));
        let topic = match context {
            Answer::Accept(PromptContext { context }) => context,
            _ => "anything you like".to_owned(),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Write a short note about {topic}."),
        )]))
    }
}
