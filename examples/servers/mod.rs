//! The example servers, each ported tool beside its legacy original (`legacy/`): diff the two
//! files to see what a port changes.

pub mod deploy_service;
pub mod fleet;
pub mod legacy;
pub mod release_notes;
pub mod repo_tools;
