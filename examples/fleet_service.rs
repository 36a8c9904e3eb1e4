//! What each instance of the fleet harness (`scripts/fleet.sh`) serves: `deploy_service` and
//! `summarize_incidents` with `release_notes` beside them (`servers/fleet.rs`), so that one load
//! balancer fronts every multi-round flow of the examples. It reads the variables
//! `deploy_service` does (`MRTR_REDIS_URL`, `MRTR_INSTANCE`, `MRTR_EFFECT_LOG`, ...).
//!
//! A binary of its own rather than a switch in `deploy_service`: a binary that can serve either
//! server carries rmcp's whole service stack twice, once per server type, and the copy it does
//! not run sits between the one it does (about 2% of `deploy_service`'s flows per second).

use mrtr::StrictParams;
use mrtr::prescan::Prescan;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::fleet::FleetServer;
use mrtr_examples::{Launch, init_tracing, install_runtime, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let runtime = install_runtime("fleet-service")?;
    let ops = Ops::from_env(runtime.state_ttl())?;
    let prescan = Prescan::new(runtime.limits().clone());
    serve(&launch, "fleet-service", Some(prescan), move || {
        StrictParams::new(FleetServer::new(ops.clone()))
    })
    .await
}
