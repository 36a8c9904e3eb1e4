//! One arm for every way of not answering: `Ok(None) | Err(UserDeclined) | Err(UserCancelled)`.
use rmcp::model::{CallToolResult, ContentBlock};
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
    #[tool(description = "Write notes")]
    async fn notes(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let readers = match peer.elicit::<Audience>("For whom?").await {
            Ok(Some(audience)) => audience.readers,
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => "engineers".to_string(),
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(readers)]))
    }
}
