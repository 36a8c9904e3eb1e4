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
pub mod ledger;
pub mod ops;
pub mod reply;
pub mod servers;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use mrtr::delivery::DeliveryLayer;
use mrtr::prescan::{Prescan, PrescanLayer, StdioFilter};
use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_layer::Layer as _;

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

/// Installs the mrtr runtime from the `MRTR_STATE_*` variables (keys, TTL, size cap, mode);
/// with `MRTR_REDIS_URL` set, every continuation is single-use across the fleet
/// (`mrtr::replay_redis`). Call it inside the tokio runtime.
pub fn install_runtime(audience: &str) -> Result<Arc<mrtr::Runtime>, Box<dyn std::error::Error>> {
    let mut runtime = mrtr::Runtime::from_env(audience)?;
    if let Some(config) = mrtr::replay_redis::RedisGuardConfig::from_env()? {
        eprintln!(
            "{audience}: single use on Redis at {} (prefix `{}`, {:?} when unreachable)",
            config.redacted_url(),
            config.key_prefix,
            config.when_unreachable
        );
        let guard = mrtr::replay_redis::RedisReplayGuard::new(config)?;
        runtime = runtime.with_replay_guard(Arc::new(guard));
    }
    Ok(runtime.install())
}

/// Names this instance in an `x-mrtr-instance` header on every HTTP response, so a client
/// behind a load balancer can see which instance answered each round.
pub const INSTANCE_VAR: &str = "MRTR_INSTANCE";

fn with_instance_header(router: axum::Router) -> axum::Router {
    let Some(name) = std::env::var(INSTANCE_VAR)
        .ok()
        .and_then(|name| axum::http::HeaderValue::from_str(&name).ok())
    else {
        return router;
    };
    router.layer(axum::middleware::map_response(
        move |mut response: axum::response::Response| {
            let name = name.clone();
            async move {
                response.headers_mut().insert("x-mrtr-instance", name);
                response
            }
        },
    ))
}

/// How long a legacy Streamable HTTP session may stay silent before it is closed and its
/// memory returned. A session dropped mid-elicitation (the user closed the tab, the proxy cut
/// the stream) is otherwise held, handler and pending ask included, until the timeout.
/// Matched to the default continuation TTL: a legacy user gets as long to answer a form as a
/// 2026-07-28 one. 2026-07-28 requests have no session.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);

/// Overrides [`DEFAULT_SESSION_IDLE`], in seconds (1–86400).
pub const SESSION_IDLE_VAR: &str = "MRTR_SESSION_IDLE_SECS";

/// The idle timeout from [`SESSION_IDLE_VAR`], or the default.
pub fn session_idle_timeout(var: impl Fn(&str) -> Option<String>) -> Result<Duration, String> {
    let Some(text) = var(SESSION_IDLE_VAR) else {
        return Ok(DEFAULT_SESSION_IDLE);
    };
    match text.trim().parse::<u64>() {
        Ok(seconds @ 1..=86_400) => Ok(Duration::from_secs(seconds)),
        _ => Err(format!(
            "{SESSION_IDLE_VAR} must be a whole number of seconds between 1 and 86400, not `{}`",
            text.trim()
        )),
    }
}

/// The legacy session store the examples serve with: sessions idle for `idle` are closed.
pub fn session_manager(idle: Duration) -> Arc<LocalSessionManager> {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(idle);
    Arc::new(manager)
}

/// Binds `addr` for HTTP with `TCP_NODELAY` on every accepted connection: MCP messages are
/// small request/response pairs, which Nagle's algorithm would hold back by up to 40 ms.
pub async fn bind_nodelay(
    addr: SocketAddr,
) -> std::io::Result<(impl axum::serve::Listener<Addr = SocketAddr>, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY");
        }
    });
    Ok((listener, bound))
}

/// Serves `make()` on the chosen transport until the client goes away (stdio) or the process is
/// stopped (HTTP). A ported server is served behind `prescan` (see [`mrtr::prescan`]); a legacy
/// original passes `None` and is served as plain rmcp, as it was before the port.
pub async fn serve<S, F>(
    launch: &Launch,
    name: &str,
    prescan: Option<Prescan>,
    make: F,
) -> Result<(), Box<dyn std::error::Error>>
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    match launch {
        Launch::Stdio => serve_stream(make(), prescan, tokio::io::stdin(), tokio::io::stdout())
            .await
            .map_err(|error| -> Box<dyn std::error::Error> { error })?,
        Launch::Http(addr) => {
            let idle = session_idle_timeout(|name| std::env::var(name).ok())?;
            let router = with_instance_header(mcp_router(make, prescan, session_manager(idle)));
            let (listener, bound) = bind_nodelay(*addr).await?;
            eprintln!("{name}: serving MCP (2026-07-28 and legacy sessions) at http://{bound}/mcp");
            eprintln!(
                "  legacy sessions idle for {}s are closed ({SESSION_IDLE_VAR})",
                idle.as_secs()
            );
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

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves `server` over newline-delimited JSON-RPC on `read`/`write` (stdio, or a test's pipe)
/// until the input ends; behind `prescan`, through its line filter.
pub async fn serve_stream<S, R, W>(
    server: S,
    prescan: Option<Prescan>,
    read: R,
    write: W,
) -> Result<(), BoxError>
where
    S: ServerHandler + Send + 'static,
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    match prescan {
        Some(prescan) => {
            let (transport, flushed) = StdioFilter::new(prescan).spawn(read, write);
            let served: Result<_, BoxError> =
                async { Ok(server.serve(transport).await?.waiting().await?) }.await;
            // However rmcp ended (an input that ends before `initialize` is an error to it),
            // what it wrote and the pre-scan's refusals reach `write` before this returns.
            flushed.await?;
            served?;
        }
        None => {
            server.serve((read, write)).await?.waiting().await?;
        }
    }
    Ok(())
}

/// The `/mcp` route the examples serve: rmcp's Streamable HTTP service (legacy sessions kept in
/// `sessions`), behind `prescan` when given, with the same body limit on both, and behind
/// `DeliveryLayer` unless the installed runtime is known not to be single-use.
pub fn mcp_router<S, F>(
    make: F,
    prescan: Option<Prescan>,
    sessions: Arc<LocalSessionManager>,
) -> axum::Router
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    // A 2026-07-28 call is answered by one message (MRTR asks in the result, not mid-call), so it
    // goes back as one JSON body, as the python and TypeScript SDKs answer it: no SSE stream to
    // set up, keep alive and end. rmcp still streams when a handler sends anything before its
    // result, and legacy sessions stream as before.
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let max_body = config.max_request_body_bytes;
    let service = StreamableHttpService::new(move || Ok(make()), sessions, config);
    let router = axum::Router::new();
    let Some(prescan) = prescan else {
        return router.nest_service("/mcp", service);
    };
    let prescanned = PrescanLayer::new(prescan)
        .with_max_request_body_bytes(max_body)
        .layer(service);
    // Under single use, a continuation is spent once its response leaves (`mrtr::delivery`),
    // so a SIGKILL before that lets the client's retry take it over. Without single use there
    // is nothing to spend, and the layer would only wrap every response. A runtime installed
    // later than the router is not known here: then the layer stays, as it is always correct.
    match mrtr::Runtime::installed() {
        Some(runtime) if !runtime.is_single_use() => router.nest_service("/mcp", prescanned),
        _ => router.nest_service("/mcp", DeliveryLayer.layer(prescanned)),
    }
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
    fn the_session_idle_timeout_defaults_and_is_bounded() {
        let from = |value: &'static str| move |_: &str| Some(value.to_owned());
        assert_eq!(session_idle_timeout(|_| None), Ok(DEFAULT_SESSION_IDLE));
        assert_eq!(
            session_idle_timeout(from(" 90 ")),
            Ok(Duration::from_secs(90))
        );
        for bad in ["0", "86401", "-1", "soon", ""] {
            let error = session_idle_timeout(from(bad)).expect_err(bad);
            assert!(error.contains(SESSION_IDLE_VAR), "{error}");
        }
    }

    #[test]
    fn bad_flags_are_reported_not_ignored() {
        assert!(parse(&["--http"]).is_err());
        assert!(parse(&["--http", "nope"]).is_err());
        assert!(parse(&["--stdio", "extra"]).is_err());
        assert!(parse(&["--verbose"]).is_err());
    }
}
