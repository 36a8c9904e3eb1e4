//! The fleet harness's clients: complete multi-round flows over raw Streamable HTTP
//! (`fleet-load`, run by `scripts/fleet.sh`) and the memory benchmark of suspended calls
//! (`fleet-memory`, run by `scripts/memory.sh`).

pub mod effects;
pub mod flow;
pub mod flows;
pub mod wire;
