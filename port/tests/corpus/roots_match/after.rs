//! `roots/list` matched directly: ported, with a note on configuration-based roots.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "How many roots")]
    async fn count_roots(&self) -> Result<CallToolResult, ErrorData> {
        let count = match ask!(count: roots()) {
            Answer::Accept(list) => list.roots.len(),
            Answer::Decline | Answer::Cancel => 0,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            count.to_string(),
        )]))
    }
}
