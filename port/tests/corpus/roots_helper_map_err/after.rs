//! The repo_tools shape: a helper asks for roots through `.map_err(..)?`; both tools call it.
#![allow(deprecated)]
use mrtr::{Answer, ask, mrtr_helper, mrtr_tool};
use std::path::PathBuf;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathArgs {
    pub path: String,
}

pub struct Server;

#[mrtr_tool]
#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Read a file inside the client's roots")]
    async fn read_file(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = ask!(path: inside_roots(&args.path).await)?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            path.display().to_string(),
        )]))
    }
}

#[mrtr_helper]
async fn inside_roots(requested: &str) -> Result<PathBuf, ErrorData> {
    let roots = match ask!(roots: roots()) {
        Answer::Accept(value) => Ok(value),
        Answer::Decline | Answer::Cancel => Err(rmcp::ServiceError::Cancelled {
            reason: Some("the client declined the request".into()),
        }),
    }
    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let allowed = roots
        .roots
        .iter()
        .filter_map(|root| root.uri.strip_prefix("file://"))
        .any(|root| requested.starts_with(root));
    if allowed {
        Ok(PathBuf::from(requested))
    } else {
        Err(ErrorData::invalid_params("outside the roots", None))
    }
}
