//! The hand-written rmcp baseline of the flow benchmark, served exactly as the examples serve
//! (`mrtr_examples::serve`: the same flags, listener and Streamable HTTP service), without
//! anything from mrtr in front of it.

use std::sync::Arc;

use mrtr_examples::ops::Ops;
use mrtr_examples::{Launch, init_tracing, serve};
use mrtr_flows::baseline::{Baseline, codec};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let ops = Ops::new();
    let codec = Arc::new(codec());
    serve(&launch, "rmcp-baseline", None, move || {
        Baseline::new(ops.clone(), codec.clone())
    })
    .await
}
