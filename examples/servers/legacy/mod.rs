//! The legacy (2025-11-25) originals: each tool awaits server-initiated requests mid-call.

pub mod deploy_service;
pub mod release_notes;
pub mod repo_tools;
