//! The mrtr example's server configured as the hand-written baseline is: sign-only (`h2`) state
//! (HMAC-SHA-256, as rmcp's `RequestStateCodec` signs) and nothing in front of rmcp's service
//! (no pre-scan, so no delivery layer either). The same `Deployer`, the same `StrictParams`, the
//! same `mrtr_examples::serve`; only the two defaults that the baseline has no counterpart for are
//! off. Beside the example as shipped, it splits what a port costs into what the lowering and the
//! runtime cost and what encrypting the state and pre-scanning attacker input cost.

use mrtr::StrictParams;
use mrtr::config::{StateConfig, StateMode};
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::deploy_service::Deployer;
use mrtr_examples::{Launch, init_tracing, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let config = StateConfig::from_env("deploy-service")?.with_mode(StateMode::Hmac);
    let runtime = mrtr::Runtime::new(config)?.install();
    let ops = Ops::served(runtime.state_ttl());
    serve(&launch, "mrtr-as-baseline", None, move || {
        StrictParams::new(Deployer::new(ops.clone()))
    })
    .await
}
