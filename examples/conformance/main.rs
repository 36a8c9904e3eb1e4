//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) runs
//! against: `cargo run --example conformance -- --http 127.0.0.1:PORT` serves it at `/mcp`.
//!
//! Every fixture that needs the client's input is an ordinary async handler written with
//! `#[mrtr_tool]` and `ask!`: the same body answers the 2026-07-28 scenarios with
//! `input_required` rounds and the 2025-11-25 scenarios with real server-initiated requests.
//! Scripts: `scripts/conformance.sh` installs the suite and runs every scenario this server is
//! meant to pass.

mod input_required;
mod legacy;
mod stateless;

use std::process::ExitCode;

use mrtr_examples::Launch;
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};

/// One router per fixture family; the suite only ever sees their union.
#[derive(Clone)]
pub struct Conformance {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl Conformance {
    pub fn new() -> Self {
        Self {
            tool_router: Self::input_required_tools()
                + Self::legacy_tools()
                + Self::stateless_tools(),
            prompt_router: Self::input_required_prompts(),
        }
    }
}

impl Default for Conformance {
    fn default() -> Self {
        Self::new()
    }
}

// No `#[prompt_handler]`: it silently replaces a hand-written `get_prompt` with its own, which
// loses the MRTR fields; both prompt methods are written out below instead.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        // No `listChanged`: this server's lists never change, so `server-stateless` rightly
        // skips its subscription checks instead of waiting for notifications that never come.
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "mrtr-conformance",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // rmcp's prompt router drops `inputResponses`/`requestState`; this hands them on to
        // the lowered prompt handler.
        mrtr::get_prompt(&self.prompt_router, self, request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        // rmcp adds the 2026-07-28 caching hints (`ttlMs`, `cacheScope`) on the way out.
        Ok(ListPromptsResult::with_all_items(
            self.prompt_router.list_all(),
        ))
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    mrtr_examples::init_tracing();
    let launch = match Launch::from_args(std::env::args().skip(1)) {
        Ok(launch) => launch,
        Err(error) => {
            eprintln!("conformance: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match mrtr_examples::install_runtime("mrtr-conformance") {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance: {error}");
            return ExitCode::FAILURE;
        }
    };
    let prescan = mrtr::prescan::Prescan::new(runtime.limits().clone());
    match mrtr_examples::serve(&launch, "conformance", Some(prescan), || {
        mrtr::StrictParams::new(Conformance::new())
    })
    .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance: {error}");
            ExitCode::FAILURE
        }
    }
}
