//! `read_file` and `list_dir` as written for the legacy handshake: before touching the disk
//! each call asks the client for its roots (`roots/list`) and trusts the answer as the
//! boundary. `../repo_tools.rs` retires roots instead of porting them.
#![allow(deprecated)] // roots are deprecated by SEP-2577 but still served

use std::path::PathBuf;
use std::sync::LazyLock;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathArgs {
    /// A path inside one of the client's roots.
    pub path: String,
}

#[derive(Clone, Default)]
pub struct RepoTools;

#[tool_router]
impl RepoTools {
    #[tool(description = "Read a text file inside the client's roots")]
    async fn read_file(
        &self,
        Parameters(args): Parameters<PathArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = inside_client_roots(&peer, &args.path).await?;
        let body = std::fs::read_to_string(&path)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(body)]))
    }

    #[tool(description = "List a directory inside the client's roots")]
    async fn list_dir(
        &self,
        Parameters(args): Parameters<PathArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = inside_client_roots(&peer, &args.path).await?;
        let mut names: Vec<String> = std::fs::read_dir(&path)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?
            .filter_map(|entry| {
                entry
                    .ok()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
            })
            .collect();
        names.sort();
        Ok(CallToolResult::success(vec![ContentBlock::text(
            names.join("\n"),
        )]))
    }
}

/// The boundary comes from the caller, mid-call, every call. Both sides are canonicalised, so
/// `..` and symlinks cannot step outside a root.
async fn inside_client_roots(
    peer: &Peer<RoleServer>,
    requested: &str,
) -> Result<PathBuf, ErrorData> {
    let roots = peer
        .list_roots()
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let outside =
        || ErrorData::invalid_params(format!("{requested} is outside the client's roots"), None);
    let path = std::fs::canonicalize(requested).map_err(|_| outside())?;
    let allowed = roots
        .roots
        .iter()
        .filter_map(|root| root.uri.strip_prefix("file://"))
        .filter_map(|root| std::fs::canonicalize(root).ok())
        .any(|root| path.starts_with(root));
    if allowed { Ok(path) } else { Err(outside()) }
}

/// The tool router, built once per process (rmcp's default builds it for every call).
static TOOLS: LazyLock<ToolRouter<RepoTools>> = LazyLock::new(RepoTools::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for RepoTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("legacy-repo-tools", env!("CARGO_PKG_VERSION")),
        )
    }
}
