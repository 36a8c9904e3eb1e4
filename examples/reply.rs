//! Small result helpers the example servers share, legacy and ported alike.
#![allow(deprecated)] // sampling is deprecated by SEP-2577 but still part of 2026-07-28

use rmcp::model::{CallToolResult, ContentBlock, SamplingMessageContentBlock};

/// A successful tool result with one text block.
pub fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// The first text block of a sampled message, if the model sent one.
pub fn sampled_text(blocks: &[SamplingMessageContentBlock]) -> Option<String> {
    blocks
        .iter()
        .find_map(|block| block.as_text())
        .map(|t| t.text.clone())
}
