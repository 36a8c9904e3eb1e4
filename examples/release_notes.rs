//! `release_notes` ported with `mrtr` (server in `servers/release_notes.rs`; legacy original in
//! `servers/legacy/release_notes.rs`).

use mrtr::StrictParams;
use mrtr::prescan::Prescan;
use mrtr_examples::ops::Ops;
use mrtr_examples::servers::release_notes::Releaser;
use mrtr_examples::{Launch, init_tracing, install_runtime, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let runtime = install_runtime("release-notes")?;
    let ops = Ops::served(runtime.state_ttl());
    let prescan = Prescan::new(runtime.limits().clone());
    serve(&launch, "release-notes", Some(prescan), move || {
        StrictParams::new(Releaser::new(ops.clone()))
    })
    .await
}
