//! A raw `create_elicitation` with a hand-built schema: reported with the `ask!` to write.
use rmcp::model::{CallToolResult, ContentBlock, ElicitRequestParams, ElicitationSchema};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Ask for anything")]
    async fn survey(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let schema = ElicitationSchema::builder()
            .required_string("answer")
            .build()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Anything to add?".into(),
            requested_schema: schema,
        };
        let result = peer
            .create_elicitation(params)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{:?}",
            result.action
        ))]))
    }
}
