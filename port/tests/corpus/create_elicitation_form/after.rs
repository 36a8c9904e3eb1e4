//! A raw `create_elicitation` with a hand-built schema and the params written at the call: it
//! becomes `elicit_with_schema`, and the `ElicitResult` the code reads is rebuilt from the
//! answer.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock, ElicitationAction, ElicitationSchema};
use rmcp::{ErrorData, tool, tool_router};

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Ask for a comment")]
    async fn comment(&self) -> Result<CallToolResult, ErrorData> {
        let schema = ElicitationSchema::builder()
            .required_string("comment")
            .build()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let result = match ask!(result: elicit_with_schema::<serde_json::Value>("Anything to add?", serde_json::to_value(&schema).expect("an elicitation schema serializes"))) {
            Answer::Accept(content) => Ok::<_, rmcp::ServiceError>(
                rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept).with_content(content),
            ),
            Answer::Decline => Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline)),
            Answer::Cancel => Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Cancel)),
        }
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = match result.action {
            ElicitationAction::Accept => format!("{:?}", result.content),
            _ => "no comment".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
