//! The main job: the seed guide's `deploy_service` and `summarize_incidents` tools, ported to
//! 2026-07-28 with `mrtr` (server in `servers/deploy_service.rs`; the legacy original is
//! `servers/legacy/deploy_service.rs`).
//!
//! `cargo run --example deploy_service` serves Streamable HTTP at 127.0.0.1:8080/mcp;
//! `-- --stdio` serves stdio; `-- --demo` plays the three-message exchange against itself.
//!
//! `MRTR_REDIS_URL` makes continuations single-use on Redis, `MRTR_INSTANCE` names the instance
//! in an `x-mrtr-instance` response header, and `MRTR_EFFECT_LOG` appends every effect to a file
//! (the fleet harness serves these tools with `release_notes` from the `fleet_service` example).

use mrtr::StrictParams;
use mrtr::prescan::Prescan;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use mrtr_examples::{Launch, init_tracing, install_runtime, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let runtime = install_runtime("deploy-service")?;
    let ops = Ops::from_env(runtime.state_ttl())?;
    if launch == Launch::Demo {
        return mrtr_examples::demo::play_deploy(Deployer::new(ops.clone()), &ops).await;
    }
    let prescan = Prescan::new(runtime.limits().clone());
    serve(&launch, "deploy-service", Some(prescan), move || {
        StrictParams::new(Deployer::new(ops.clone()))
    })
    .await
}
