//! The example servers, each ported tool beside its legacy original (`legacy/`): diff the two
//! files to see what a port changes.

// LEAD-TODO(re-enable when #[mrtr_tool] lands): pub mod deploy_service;
pub mod legacy;
// LEAD-TODO(re-enable when #[mrtr_tool] lands): pub mod release_notes;
pub mod repo_tools;
