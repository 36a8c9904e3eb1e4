//! The legacy (2025-11-25) original of `release_notes`; server in
//! `servers/legacy/release_notes.rs`.

use mrtr_examples::ops::Ops;
use mrtr_examples::servers::legacy::release_notes::Releaser;
use mrtr_examples::{Launch, init_tracing, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    // A legacy session seals nothing, so no effect is keyed by a round.
    let ops = Ops::served(std::time::Duration::ZERO);
    // The unported original: plain rmcp, no pre-scan.
    serve(&launch, "legacy-release-notes", None, move || {
        Releaser::new(ops.clone())
    })
    .await
}
