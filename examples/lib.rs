//! What every example server shares: the command line, tracing, the mrtr runtime and the two
//! transports. Each example binary takes the same flags:
//!
//! - `--http 127.0.0.1:PORT` serves Streamable HTTP at `/mcp` (the default, on port 8080);
//! - `--stdio` serves stdio;
//! - `--demo` (where the example has one) plays a scripted exchange against itself.
//!
//! Both eras work on both transports: a 2026-07-28 request takes the MRTR path, a session
//! opened with `initialize` takes the legacy path.

pub mod demo;
pub mod ops;
pub mod reply;
pub mod servers;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// How an example was asked to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Launch {
    Http(SocketAddr),
    Stdio,
    Demo,
}

const DEFAULT_ADDR: &str = "127.0.0.1:8080";

impl Launch {
    /// Parses `--http ADDR`, `--stdio` or `--demo`; no flag means HTTP on the default address.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut args = args.into_iter();
        let launch = match args.next().as_deref() {
            None => Launch::Http(DEFAULT_ADDR.parse().expect("default address parses")),
            Some("--http") => {
                let addr = args
                    .next()
                    .ok_or("--http needs an address, e.g. --http 127.0.0.1:8080")?;
                Launch::Http(addr.parse().map_err(|e| format!("--http {addr}: {e}"))?)
            }
            Some("--stdio") => Launch::Stdio,
            Some("--demo") => Launch::Demo,
            Some(other) => {
                return Err(format!(
                    "unknown flag {other}; use --http ADDR, --stdio or --demo"
                ));
            }
        };
        match args.next() {
            None => Ok(launch),
            Some(extra) => Err(format!("unexpected argument {extra}")),
        }
    }
}

/// Logs go to stderr: on stdio, stdout belongs to the protocol.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Installs the mrtr runtime from `MRTR_STATE_KEYS`, `MRTR_STATE_TTL` and `MRTR_STATE_MAX_BYTES`.
pub fn install_runtime(audience: &str) -> Result<Arc<mrtr::Runtime>, mrtr::MrtrError> {
    Ok(mrtr::Runtime::from_env(audience)?.install())
}

/// Serves `make()` on the chosen transport until the client goes away (stdio) or the process is
/// stopped (HTTP).
pub async fn serve<S, F>(
    launch: &Launch,
    name: &str,
    make: F,
) -> Result<(), Box<dyn std::error::Error>>
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    match launch {
        Launch::Stdio => {
            let running = make().serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        Launch::Http(addr) => {
            let service = StreamableHttpService::new(
                move || Ok(make()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let bound = listener.local_addr()?;
            eprintln!("{name}: serving MCP (2026-07-28 and legacy sessions) at http://{bound}/mcp");
            eprintln!("  connect any MCP client to that URL, e.g.:");
            eprintln!(
                "  npx @modelcontextprotocol/inspector --transport http --server-url http://{bound}/mcp"
            );
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown_signal())
                .await?;
        }
        Launch::Demo => return Err("this example has no --demo".into()),
    }
    Ok(())
}

async fn shutdown_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Launch, String> {
        Launch::from_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn no_flag_serves_http_on_the_default_port() {
        assert_eq!(
            parse(&[]),
            Ok(Launch::Http("127.0.0.1:8080".parse().unwrap()))
        );
    }

    #[test]
    fn every_documented_flag_parses() {
        assert_eq!(
            parse(&["--http", "127.0.0.1:9"]),
            Ok(Launch::Http("127.0.0.1:9".parse().unwrap()))
        );
        assert_eq!(parse(&["--stdio"]), Ok(Launch::Stdio));
        assert_eq!(parse(&["--demo"]), Ok(Launch::Demo));
    }

    #[test]
    fn bad_flags_are_reported_not_ignored() {
        assert!(parse(&["--http"]).is_err());
        assert!(parse(&["--http", "nope"]).is_err());
        assert!(parse(&["--stdio", "extra"]).is_err());
        assert!(parse(&["--verbose"]).is_err());
    }
}
