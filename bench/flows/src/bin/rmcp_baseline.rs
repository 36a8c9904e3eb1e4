//! The hand-written rmcp baseline of the flow benchmark, served exactly as the examples serve
//! (`mrtr_examples::serve`: the same flags, listener and Streamable HTTP service), without
//! anything from mrtr in front of it. `RMCP_BASELINE_STATE_PAD=N` seals N bytes of filler
//! beside each step, to measure what a token's size alone costs; `RMCP_BASELINE_BALLAST_KIB=N`
//! runs N KiB of distinct code on every tool call, to measure what code size alone costs.

use std::sync::Arc;

use mrtr_examples::ops::Ops;
use mrtr_examples::{Launch, init_tracing, serve};
use mrtr_flows::ballast;
use mrtr_flows::baseline::{BALLAST_VAR, Baseline, STATE_PAD_VAR, STATE_TTL, codec};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let ops = Ops::served(STATE_TTL);
    let codec = Arc::new(codec());
    let padding = Baseline::state_padding(count_from(STATE_PAD_VAR)?);
    let ballast = count_from(BALLAST_VAR)?;
    if ballast > ballast::MAX_KIB {
        return Err(format!("{BALLAST_VAR}: at most {} KiB", ballast::MAX_KIB).into());
    }
    serve(&launch, "rmcp-baseline", None, move || {
        Baseline::new(ops.clone(), codec.clone())
            .with_state_padding(padding.clone())
            .with_ballast(ballast)
    })
    .await
}

/// The count in the environment variable `var`; 0 when it is not set.
fn count_from(var: &str) -> Result<usize, String> {
    match std::env::var(var) {
        Ok(text) => text
            .trim()
            .parse::<usize>()
            .map_err(|e| format!("{var}: `{text}`: {e}")),
        Err(_) => Ok(0),
    }
}
