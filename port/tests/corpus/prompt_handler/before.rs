//! An rmcp `#[prompt]` that asks, in a `#[prompt_router]` impl.
use rmcp::model::{PromptMessage, Role};
use rmcp::{ErrorData, Peer, RoleServer, prompt, prompt_router, schemars};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Tone {
    pub tone: String,
}
rmcp::elicit_safe!(Tone);

pub struct Prompts;

#[prompt_router]
impl Prompts {
    #[prompt(description = "A greeting in the tone the user picks")]
    async fn greeting(&self, peer: Peer<RoleServer>) -> Result<Vec<PromptMessage>, ErrorData> {
        let tone = match peer.elicit::<Tone>("Which tone?").await {
            Ok(Some(Tone { tone })) => tone,
            _ => "neutral".to_string(),
        };
        Ok(vec![PromptMessage::new_text(
            Role::User,
            format!("Greet me in a {tone} tone."),
        )])
    }
}
