//! The repo_tools shape: a helper asks for roots through `.map_err(..)?`; both tools call it.
#![allow(deprecated)]
use std::path::PathBuf;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathArgs {
    pub path: String,
}

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Read a file inside the client's roots")]
    async fn read_file(
        &self,
        Parameters(args): Parameters<PathArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = inside_roots(&peer, &args.path).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            path.display().to_string(),
        )]))
    }
}

async fn inside_roots(peer: &Peer<RoleServer>, requested: &str) -> Result<PathBuf, ErrorData> {
    let roots = peer
        .list_roots()
        .await
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
