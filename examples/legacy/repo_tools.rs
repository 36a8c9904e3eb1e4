//! The legacy (2025-11-25) original of `repo_tools`, which asked the client for its roots; server
//! in `servers/legacy/repo_tools.rs`.

use mrtr_examples::servers::legacy::repo_tools::RepoTools;
use mrtr_examples::{Launch, init_tracing, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    // The unported original: plain rmcp, no pre-scan.
    serve(&launch, "legacy-repo-tools", None, || RepoTools).await
}
