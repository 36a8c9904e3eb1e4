//! The hand-written rmcp baseline of the flow benchmark, served exactly as the examples serve
//! (`mrtr_examples::serve`: the same flags, listener and Streamable HTTP service), without
//! anything from mrtr in front of it. `RMCP_BASELINE_STATE_PAD=N` seals N bytes of filler
//! beside each step, to measure what a token's size alone costs.

use std::sync::Arc;

use mrtr_examples::ops::Ops;
use mrtr_examples::{Launch, init_tracing, serve};
use mrtr_flows::baseline::{Baseline, STATE_PAD_VAR, STATE_TTL, codec};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let ops = Ops::served(STATE_TTL);
    let codec = Arc::new(codec());
    let padding = match std::env::var(STATE_PAD_VAR) {
        Ok(text) => text
            .trim()
            .parse::<usize>()
            .map_err(|e| format!("{STATE_PAD_VAR}: `{text}`: {e}"))?,
        Err(_) => 0,
    };
    let padding = Baseline::state_padding(padding);
    serve(&launch, "rmcp-baseline", None, move || {
        Baseline::new(ops.clone(), codec.clone()).with_state_padding(padding.clone())
    })
    .await
}
