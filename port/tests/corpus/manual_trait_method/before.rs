//! A hand-written `ServerHandler::get_prompt` that asks: a trait method cannot be lowered, so
//! the request is reported and left as it was.
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, PromptMessage, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Tone {
    pub tone: String,
}
rmcp::elicit_safe!(Tone);

pub struct Prompts;

impl ServerHandler for Prompts {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let tone = match context.peer.elicit::<Tone>("Which tone?").await {
            Ok(Some(Tone { tone })) => tone,
            _ => "neutral".to_string(),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Greet me in a {tone} tone."),
        )])
        .into())
    }
}
