//! Two requests awaited together with `tokio::join!`: one round, two keys.
#![allow(deprecated)]
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Audience {
    pub readers: String,
}
rmcp::elicit_safe!(Audience);

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Release notes")]
    async fn release_notes(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let (audience, draft) = tokio::join!(
            peer.elicit::<Audience>("Who are they for?"),
            peer.create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("draft notes")],
                300
            )),
        );
        let readers = match audience {
            Ok(Some(audience)) => audience.readers,
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => "engineers".to_string(),
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        };
        let body = match draft {
            Ok(result) => format!("{:?}", result.message.content),
            Err(_) => "- changes".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{readers}: {body}"
        ))]))
    }
}
