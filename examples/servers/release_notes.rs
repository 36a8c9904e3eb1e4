//! `release_notes`, ported with `mrtr`: the audience question (elicitation) and the draft
//! (sampling) are asked in the same round, and each answer is handled on its own terms — a
//! cancelled form with an accepted draft is normal. Compare with `legacy/release_notes.rs`.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still part of 2026-07-28

use crate::ops::Ops;
use crate::reply::{sampled_text, text};
use mrtr::{Answer, ClientCaps, StepKey, ask, mrtr_tool};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, Implementation, SamplingMessage,
    ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::sync::LazyLock;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReleaseArgs {
    /// The version being released, e.g. `4.2.0`.
    pub version: String,
}

#[derive(Debug, Deserialize, mrtr::Elicit)]
#[serde(rename_all = "lowercase")]
pub enum Readers {
    Customers,
    Engineers,
}

#[derive(Debug, Deserialize, mrtr::Elicit)]
pub struct Audience {
    /// Who will read these notes
    pub readers: Readers,
}

#[derive(Clone)]
pub struct Releaser {
    ops: Ops,
}

#[mrtr_tool] // also on the impl: each handler's step enum, beside it in rustdoc
#[tool_router]
impl Releaser {
    pub fn new(ops: Ops) -> Self {
        Self { ops }
    }

    #[mrtr_tool]
    #[tool(description = "Draft and publish release notes for a version")]
    async fn release_notes(
        &self,
        Parameters(args): Parameters<ReleaseArgs>,
        caps: ClientCaps,
        step: StepKey,
    ) -> Result<CallToolResult, ErrorData> {
        let changes = self.ops.collect_changes(&args.version).await?;
        if !(caps.elicitation_form() && caps.sampling()) {
            // Without a form or a model there is nothing to ask: publish the plain list.
            let body = bullets(&changes);
            let url = self
                .ops
                .publish_notes(&args.version, "engineers", &body)
                .await?;
            return Ok(text(format!(
                "Published release notes for {} (engineers): {url}\n\n{body}",
                args.version
            )));
        }
        let (audience, draft) = ask!(
            audience: elicit::<Audience>(format!("Release notes for {}: who are they for?", args.version)),
            draft: sample(draft_request(&args.version, &changes)),
        );
        let readers = match audience {
            Answer::Accept(audience) => audience.readers.as_str(),
            Answer::Decline | Answer::Cancel => "engineers",
        };
        let body = match draft {
            Answer::Accept(result) => sampled_text(&result.message.content.clone().into_vec())
                .unwrap_or_else(|| bullets(&changes)),
            Answer::Decline | Answer::Cancel => bullets(&changes),
        };
        // The round's key: a round taken over after a crash publishes once (see deploy_service).
        let url = self
            .ops
            .idempotent(step.get())
            .publish_notes(&args.version, readers, &body)
            .await?;
        Ok(text(format!(
            "Published release notes for {} ({readers}): {url}\n\n{body}",
            args.version
        )))
    }
}

/// The tool router, built once per process (rmcp's default builds it for every call).
static TOOLS: LazyLock<ToolRouter<Releaser>> = LazyLock::new(Releaser::tool_router);

#[tool_handler(router = TOOLS)]
impl ServerHandler for Releaser {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("release-notes", env!("CARGO_PKG_VERSION")),
        )
    }
}

impl Readers {
    fn as_str(&self) -> &'static str {
        match self {
            Readers::Customers => "customers",
            Readers::Engineers => "engineers",
        }
    }
}

fn draft_request(version: &str, changes: &[String]) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(bullets(changes))], 300)
        .with_system_prompt(format!(
            "Write release notes for {version} from these changes. Plain text."
        ))
}

fn bullets(changes: &[String]) -> String {
    changes
        .iter()
        .map(|c| format!("- {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}
