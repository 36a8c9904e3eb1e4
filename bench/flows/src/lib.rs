//! The flow benchmark (`bash bench/flows/run.sh`): one load generator drives complete
//! multi-round MCP flows against several servers of the same tools, in one run, and reports
//! flows/s, round latency and server CPU per flow. The workspace README's "Measured figures"
//! has the command and the last run; `JOURNAL.md` beside this crate has the runs before it and
//! what was measured of the gap between the `mrtr` example and rmcp by hand.

pub mod ballast;
pub mod baseline;
pub mod callgrind;
pub mod flows;
pub mod legacy;
pub mod load;
pub mod modern;
pub mod parts;
pub mod report;
pub mod server;
pub mod stacks;
pub mod wire;
