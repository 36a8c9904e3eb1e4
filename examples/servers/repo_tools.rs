//! `read_file` and `list_dir` with roots retired, as the 2026-07-28 revision advises: the
//! boundary is server configuration (`ALLOWED_ROOTS=/srv/api,/srv/web`), read once at start-up,
//! and every path argument is validated like any other parameter — canonicalised, so `..` and
//! symlinks are resolved, then confirmed to sit under a configured root. No round trip, nothing
//! for a client to widen. Compare with `legacy/repo_tools.rs`.

use std::sync::{Arc, LazyLock};

use mrtr::allowed_roots::AllowedRoots;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

/// Files larger than this are refused rather than streamed into a tool result.
const MAX_FILE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathArgs {
    /// A path inside one of the allowed roots, absolute or relative to the first root.
    pub path: String,
}

#[derive(Clone)]
pub struct RepoTools {
    roots: Arc<AllowedRoots>,
}

#[tool_router]
impl RepoTools {
    pub fn new(roots: AllowedRoots) -> Self {
        Self {
            roots: Arc::new(roots),
        }
    }

    #[tool(description = "Read a text file inside the server's allowed roots")]
    async fn read_file(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = self.roots.resolve(&args.path)?;
        let size = std::fs::metadata(&path)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(ErrorData::invalid_params(
                format!("{} is larger than {MAX_FILE_BYTES} bytes", args.path),
                None,
            ));
        }
        let body = std::fs::read_to_string(&path)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(body)]))
    }

    #[tool(description = "List a directory inside the server's allowed roots")]
    async fn list_dir(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = self.roots.resolve(&args.path)?;
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

/// The tool router, built once per process (rmcp's default builds it for every call).
static TOOLS: LazyLock<ToolRouter<RepoTools>> = LazyLock::new(RepoTools::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for RepoTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("repo-tools", env!("CARGO_PKG_VERSION")))
    }
}
