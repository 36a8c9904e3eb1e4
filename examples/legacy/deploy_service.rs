//! The legacy (2025-11-25) original of `deploy_service`; server in
//! `servers/legacy/deploy_service.rs`.

use mrtr_examples::ops::Ops;
use mrtr_examples::servers::legacy::deploy_service::Deployer;
use mrtr_examples::{Launch, init_tracing, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    // A legacy session seals nothing, so no effect is keyed by a round.
    let ops = Ops::served(std::time::Duration::ZERO);
    // The unported original: plain rmcp, no pre-scan.
    serve(&launch, "legacy-deploy-service", None, move || {
        Deployer::new(ops.clone())
    })
    .await
}
