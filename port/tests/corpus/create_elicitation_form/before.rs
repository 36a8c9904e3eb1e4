//! A raw `create_elicitation` with a hand-built schema and the params written at the call: it
//! becomes `elicit_with_schema`, and the `ElicitResult` the code reads is rebuilt from the
//! answer.
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction, ElicitationSchema,
};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Ask for a comment")]
    async fn comment(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let schema = ElicitationSchema::builder()
            .required_string("comment")
            .build()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let result = peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: "Anything to add?".into(),
                requested_schema: schema,
            })
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = match result.action {
            ElicitationAction::Accept => format!("{:?}", result.content),
            _ => "no comment".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
