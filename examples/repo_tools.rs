//! `read_file` and `list_dir` with roots retired (server in `servers/repo_tools.rs`; legacy
//! original in `servers/legacy/repo_tools.rs`). Set `ALLOWED_ROOTS=/dir/a,/dir/b`.

use mrtr::StrictParams;
use mrtr::allowed_roots::AllowedRoots;
use mrtr::prescan::Prescan;
use mrtr_examples::servers::repo_tools::RepoTools;
use mrtr_examples::{Launch, init_tracing, serve};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    init_tracing();
    let launch = Launch::from_args(std::env::args().skip(1))?;
    let roots = AllowedRoots::from_env("ALLOWED_ROOTS")?;
    eprintln!("repo-tools: allowed roots {:?}", roots.roots());
    // No asks, so no runtime to take limits from: the default ones.
    serve(&launch, "repo-tools", Some(Prescan::default()), move || {
        StrictParams::new(RepoTools::new(roots.clone()))
    })
    .await
}
