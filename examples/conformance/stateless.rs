//! The diagnostic tools the `server-stateless` scenario (SEP-2575) calls.
//!
//! Everything else that scenario checks (`_meta` validation, `server/discover`, -32020/-32022,
//! 404 for removed methods) is rmcp's Streamable HTTP transport, not fixture code.

#![allow(deprecated)] // logging is deprecated by SEP-2577 but still part of 2026-07-28

use mrtr::prelude::*;
use rmcp::model::{CallToolResult, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};

use crate::Conformance;
use crate::input_required::{Confirmation, question, sampled_text, text};

#[tool_router(router = stateless_tools, vis = "pub(crate)")]
impl Conformance {
    /// Needs sampling. Called with no capabilities declared, the ask never reaches the wire:
    /// the runtime answers -32021 with `requiredCapabilities: {"sampling": {}}`.
    #[mrtr_tool]
    #[tool(
        description = "Summarises a text with the client's model; needs the sampling capability"
    )]
    async fn test_missing_capability(&self) -> Result<CallToolResult, ErrorData> {
        let reply = ask!(summary: sample(question("Summarise: the quick brown fox jumps over the lazy dog.", 50)));
        Ok(match reply {
            Answer::Accept(reply) => text(sampled_text(&reply)),
            Answer::Decline | Answer::Cancel => text("The client refused to sample."),
        })
    }

    /// On 2026-07-28 the question travels inside the response (`input_required`), never as a
    /// request of its own on the response stream.
    #[mrtr_tool]
    #[tool(description = "Asks for a confirmation while the call is in flight")]
    async fn test_streaming_elicitation(&self) -> Result<CallToolResult, ErrorData> {
        let confirmed = ask!(confirm: elicit::<Confirmation>("Keep streaming?"));
        Ok(match confirmed {
            Answer::Accept(Confirmation { ok: true }) => text("Streaming confirmed."),
            _ => text("Streaming stopped."),
        })
    }

    /// Logs each step, but only for requests that opted in with
    /// `_meta["io.modelcontextprotocol/logLevel"]`, and only at or above that level: without
    /// the key a 2026-07-28 server must not send `notifications/message` at all.
    #[tool(description = "Runs three steps and logs them when the request asks for logs")]
    async fn test_logging_tool(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let threshold = context.meta.log_level();
        for step in ["fetch", "transform", "store"] {
            if let Some(threshold) = threshold
                && LoggingLevel::Info as u8 >= threshold as u8
            {
                let message = LoggingMessageNotificationParam::new(
                    LoggingLevel::Info,
                    serde_json::json!({ "step": step }),
                )
                .with_logger("test_logging_tool");
                // A client that went away is no reason to fail the tool's own work.
                let _ = context.peer.notify_logging_message(message).await;
            }
        }
        Ok(text("Ran fetch, transform and store."))
    }
}
