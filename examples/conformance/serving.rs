//! `--http ADDR` (Streamable HTTP at `/mcp`) or `--stdio`.
//!
//! Stand-in for the shared `mrtr_examples::serve` helper until it lands: same flags, same
//! behaviour, so switching is a one-line change in `main`.

use std::process::ExitCode;

use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub fn run<S>(make: fn() -> S) -> ExitCode
where
    S: ServerHandler + Send + 'static,
{
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--http", addr] => runtime.block_on(http(make, addr)),
        ["--stdio"] => runtime.block_on(stdio(make)),
        _ => {
            eprintln!("usage: --http ADDR | --stdio");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

async fn http<S>(make: fn() -> S, addr: &str) -> Result<(), Box<dyn std::error::Error>>
where
    S: ServerHandler + Send + 'static,
{
    // Legacy session mode stays on: the 2025-11-25 scenarios open `initialize` sessions on the
    // same endpoint; 2026-07-28 requests are served statelessly by rmcp either way.
    let service = StreamableHttpService::new(
        move || Ok(make()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "serving Streamable HTTP at /mcp");
    axum::serve(listener, router).await?;
    Ok(())
}

async fn stdio<S>(make: fn() -> S) -> Result<(), Box<dyn std::error::Error>>
where
    S: ServerHandler + Send + 'static,
{
    make().serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
