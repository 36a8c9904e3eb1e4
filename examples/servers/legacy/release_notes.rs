//! `release_notes` as written for the legacy handshake: it needs a human choice (who the notes
//! are for) and a model draft, and asks for both at once with two concurrent server-initiated
//! requests. `../release_notes.rs` is the same tool ported with `mrtr`.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still served

use crate::ops::Ops;
use crate::reply::{sampled_text, text};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, Implementation, SamplingMessage,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::ElicitationError;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::sync::LazyLock;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReleaseArgs {
    /// The version being released, e.g. `4.2.0`.
    pub version: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
// Inlined: an elicitation form is flat, and rmcp's `elicit::<T>` refuses the `$ref` schemars
// would otherwise emit for an enum field ("Invalid schema for type ...").
#[schemars(inline)]
pub enum Readers {
    Customers,
    Engineers,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Audience {
    /// Who will read these notes
    pub readers: Readers,
}
rmcp::elicit_safe!(Audience);

#[derive(Clone)]
pub struct Releaser {
    ops: Ops,
}

#[tool_router]
impl Releaser {
    pub fn new(ops: Ops) -> Self {
        Self { ops }
    }

    #[tool(description = "Draft and publish release notes for a version")]
    async fn release_notes(
        &self,
        Parameters(args): Parameters<ReleaseArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let changes = self.ops.collect_changes(&args.version).await?;
        let (audience, draft) = tokio::join!(
            peer.elicit::<Audience>(format!(
                "Release notes for {}: who are they for?",
                args.version
            )),
            peer.create_message(draft_request(&args.version, &changes)),
        );
        let readers = match audience {
            Ok(Some(audience)) => audience.readers.as_str(),
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => "engineers",
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        };
        let body = match draft {
            Ok(result) => sampled_text(&result.message.content.clone().into_vec())
                .unwrap_or_else(|| bullets(&changes)),
            Err(_) => bullets(&changes),
        };
        let url = self
            .ops
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
            Implementation::new("legacy-release-notes", env!("CARGO_PKG_VERSION")),
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
