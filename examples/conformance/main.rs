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
mod serving;
mod stateless;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, prompt_handler, tool_handler};

/// One router per fixture family; the suite only ever sees their union.
#[derive(Clone)]
pub struct Conformance {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl Conformance {
    pub fn new() -> Self {
        Self {
            tool_router: Self::input_required_tools() + Self::legacy_tools() + Self::stateless_tools(),
            prompt_router: Self::input_required_prompts(),
        }
    }
}

impl Default for Conformance {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        // No `listChanged`: this server's lists never change, so `server-stateless` rightly
        // skips its subscription checks instead of waiting for notifications that never come.
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().build())
            .with_server_info(Implementation::new("mrtr-conformance", env!("CARGO_PKG_VERSION")))
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // rmcp's prompt router drops `inputResponses`/`requestState`; park them where the
        // lowered prompt handler picks them up.
        mrtr::RoundInput::stash(&mut request, &mut context);
        let prompt = rmcp::handler::server::prompt::PromptContext::new(
            self,
            request.name,
            request.arguments,
            context,
        );
        self.prompt_router.get_prompt(prompt).await
    }
}

fn main() -> std::process::ExitCode {
    serving::run(Conformance::new)
}
