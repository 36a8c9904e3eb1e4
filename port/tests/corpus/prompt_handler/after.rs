//! An rmcp `#[prompt]` that asks, in a `#[prompt_router]` impl.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{PromptMessage, Role};
use rmcp::{ErrorData, prompt, prompt_router, schemars};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Tone {
    pub tone: String,
}
rmcp::elicit_safe!(Tone);

pub struct Prompts;

#[prompt_router]
impl Prompts {
    #[mrtr_tool]
    #[prompt(description = "A greeting in the tone the user picks")]
    async fn greeting(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        let tone = match ask!(tone: elicit::<Tone>("Which tone?")) {
            Answer::Accept(Tone { tone }) => tone,
            _ => "neutral".to_string(),
        };
        Ok(vec![PromptMessage::new_text(
            Role::User,
            format!("Greet me in a {tone} tone."),
        )])
    }
}
