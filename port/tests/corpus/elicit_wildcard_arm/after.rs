//! Accepted or not: `Ok(Some(..))` and `_`.
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Count {
    pub count: i64,
}
rmcp::elicit_safe!(Count);

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Scale")]
    async fn scale(&self) -> Result<CallToolResult, ErrorData> {
        let replicas = match ask!(replicas: elicit::<Count>("How many replicas?")) {
            Answer::Accept(Count { count }) if count > 0 => count,
            _ => 1,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            replicas.to_string(),
        )]))
    }
}
