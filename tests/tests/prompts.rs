//! `prompts/get` through `#[mrtr_tool]` on an rmcp `#[prompt]`: the prompt asks, then returns its
//! messages, in both eras; code before the ask runs once.

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    PaginatedRequestParams, PromptMessage, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, prompt, prompt_router};
use serde_json::{Value, json};

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Topic {
    topic: String,
}

#[derive(Clone)]
struct Writer {
    effects: Effects,
}

#[prompt_router]
impl Writer {
    #[mrtr_tool]
    #[prompt(name = "note", description = "A note on a topic the user picks")]
    async fn note(&self) -> Result<GetPromptResult, ErrorData> {
        self.effects.record("load style guide");
        let topic = ask!(topic: elicit::<Topic>("What should the note be about?"));
        let topic = match topic {
            Answer::Accept(Topic { topic }) => topic,
            Answer::Decline | Answer::Cancel => "anything".to_owned(),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Write a note about {topic}."),
        )]))
    }
}

// No `#[prompt_handler]`: it would replace this `get_prompt`, which keeps the round's
// `inputResponses` and `requestState` that rmcp's prompt router drops.
impl ServerHandler for Writer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        context.extensions.insert(test_runtime("writer"));
        let router: PromptRouter<Self> = Self::prompt_router();
        mrtr::get_prompt(&router, self, request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(
            Self::prompt_router().list_all(),
        ))
    }
}

#[tokio::test]
async fn a_prompt_asks_then_returns_its_messages_in_both_eras() {
    for era in ERAS {
        let effects = Effects::default();
        let client = ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("note be about", [accept(json!({ "topic": "tides" }))]);
        let session = connect(
            Writer {
                effects: effects.clone(),
            },
            client,
            era,
        )
        .await;
        let result = session
            .get_prompt("note")
            .await
            .expect("the prompt completes");
        let messages: Value = serde_json::to_value(&result.messages).unwrap();
        assert_eq!(
            messages[0]["content"]["text"], "Write a note about tides.",
            "{era:?}"
        );
        assert_eq!(effects.count("load style guide"), 1, "{era:?}: ran once");
        assert_eq!(session.client.asked("note be about"), 1, "{era:?}");
        session.close().await;
    }
}
