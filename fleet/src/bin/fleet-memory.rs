//! `fleet-memory`: what a server holds for calls waiting on their client.
//!
//! Starts the `deploy_service` example twice, each time alone, and reads its RSS
//! (`/proc/PID/status`) before and after N calls are left waiting on the user's answer:
//!
//! - 2026-07-28: N `deploy_service` calls suspended after round 1 (`input_required`); the state
//!   is in the tokens the client keeps (a sample is resumed at the end: they are live);
//! - legacy: N sessions (`initialize`), each with a `deploy_service` call parked on its
//!   `elicitation/create`, the client holding every response stream open.
//!
//! Both servers first serve the same warm-up, so lazily built state is in "before".
//!
//! `fleet-memory --server PATH [--calls N]`

use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use futures::future::join_all;
use mrtr_fleet::flows::{self, Kind};
use mrtr_fleet::wire;
use serde_json::{Value, json};

const CONCURRENCY: usize = 64;
const WARM_UP: usize = 256;

struct Server {
    child: Child,
    url: String,
}

impl Server {
    async fn start(path: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(path)
            .args(["--http", &format!("127.0.0.1:{port}")])
            .env("RUST_LOG", "warn")
            .env(
                "MRTR_STATE_KEYS",
                "k1:bWVtb3J5IGJlbmNobWFyayBzdGF0ZSBrZXkgMzIgYnl0ZXMh",
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the deploy_service example starts");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Server {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(CONCURRENCY)
        .timeout(Duration::from_secs(120))
        .build()
        .expect("an HTTP client")
}

/// Round 1 of `deploy_service` for each id; returns each call's `requestState`.
async fn suspend_modern(client: &reqwest::Client, url: &str, ids: &[String]) -> Vec<String> {
    let mut tokens = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(CONCURRENCY) {
        let rounds = chunk.iter().map(|flow_id| async move {
            let request = flows::call(
                1,
                Kind::Deploy,
                &Kind::Deploy.arguments(flow_id),
                None,
                None,
            );
            let answered = wire::post(client, url, &request)
                .await
                .expect("round 1 is answered");
            answered
                .result
                .get("requestState")
                .and_then(Value::as_str)
                .expect("round 1 suspends with a requestState")
                .to_owned()
        });
        tokens.extend(join_all(rounds).await);
    }
    tokens
}

/// Resumes one suspended call with its token; `true` when it completes.
async fn resume(client: &reqwest::Client, url: &str, flow_id: &str, token: &str) -> bool {
    let answer =
        json!({ "target_env": { "action": "accept", "content": { "environment": "staging" } } });
    let request = flows::call(
        2,
        Kind::Deploy,
        &Kind::Deploy.arguments(flow_id),
        Some(&answer),
        Some(token),
    );
    wire::post(client, url, &request)
        .await
        .is_ok_and(|answered| {
            answered.result.get("resultType").and_then(Value::as_str) != Some("input_required")
        })
}

/// A legacy session with its `deploy_service` call parked on `elicitation/create`: the
/// response stream is returned open, so the server keeps the call waiting.
async fn park_legacy(client: &reqwest::Client, url: &str, flow_id: &str) -> reqwest::Response {
    let post = |body: Value, session: Option<&str>| {
        let mut request = client
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if let Some(session) = session {
            request = request
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25");
        }
        request.send()
    };
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": { "elicitation": { "form": {} } },
        "clientInfo": { "name": "fleet-memory", "version": "1" } } });
    let response = post(initialize, None)
        .await
        .expect("initialize is answered");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a legacy session id")
        .to_owned();
    let _ = response.text().await;
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let _ = post(initialized, Some(&session))
        .await
        .expect("initialized is accepted")
        .text()
        .await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "deploy_service", "arguments": { "service": format!("svc-{flow_id}") } } });
    let mut stream = post(call, Some(&session))
        .await
        .expect("the call is accepted");
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("elicitation/create") {
        match stream.chunk().await {
            Ok(Some(bytes)) => seen.extend_from_slice(&bytes),
            other => panic!("the legacy call ended before asking: {other:?}"),
        }
    }
    stream
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn ids(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}{i}")).collect()
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut server_path, mut calls) = (String::new(), 10_000usize);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--server" => server_path = value,
            "--calls" => calls = value.parse().unwrap_or(calls),
            _ => {
                eprintln!("usage: fleet-memory --server PATH [--calls N]");
                return ExitCode::from(2);
            }
        }
    }
    let client = client();

    let modern = Server::start(&server_path).await;
    let warm = ids("warm-", WARM_UP);
    suspend_modern(&client, &modern.url, &warm).await;
    let before = modern.rss_kib();
    let parked = ids("m-", calls);
    let tokens = suspend_modern(&client, &modern.url, &parked).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = modern.rss_kib();
    let sample = 100.min(calls);
    let mut live = 0;
    for (flow_id, token) in parked.iter().zip(&tokens).take(sample) {
        live += usize::from(resume(&client, &modern.url, flow_id, token).await);
    }
    drop(modern);
    let token_bytes: usize = tokens.iter().map(String::len).sum::<usize>() / tokens.len().max(1);
    let modern_growth = after.saturating_sub(before);
    println!(
        "2026-07-28: {calls} calls suspended after round 1: RSS {:.1} MiB -> {:.1} MiB (+{:.2} MiB, {:.3} MiB per 1,000); tokens held by the client: {token_bytes} B each; {live}/{sample} resumed afterwards",
        mib(before),
        mib(after),
        mib(modern_growth),
        mib(modern_growth) * 1000.0 / calls as f64
    );

    let legacy = Server::start(&server_path).await;
    let mut warm_streams = Vec::new();
    for flow_id in ids("warm-", WARM_UP) {
        warm_streams.push(park_legacy(&client, &legacy.url, &flow_id).await);
    }
    drop(warm_streams);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = legacy.rss_kib();
    let mut streams = Vec::with_capacity(calls);
    let legacy_ids = ids("l-", calls);
    for chunk in legacy_ids.chunks(CONCURRENCY) {
        streams
            .extend(join_all(chunk.iter().map(|id| park_legacy(&client, &legacy.url, id))).await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = legacy.rss_kib();
    let legacy_growth = after.saturating_sub(before);
    println!(
        "legacy: {calls} calls parked on elicitation/create in open sessions: RSS {:.1} MiB -> {:.1} MiB (+{:.2} MiB, {:.3} MiB per 1,000)",
        mib(before),
        mib(after),
        mib(legacy_growth),
        mib(legacy_growth) * 1000.0 / calls as f64
    );
    drop(streams);
    let ratio = legacy_growth as f64 / modern_growth.max(1) as f64;
    println!(
        "memory: suspended 2026-07-28 calls grow the server {ratio:.0}x less than parked legacy calls"
    );
    let per_thousand = mib(modern_growth) * 1000.0 / calls as f64;
    if live == sample && per_thousand < 1.0 {
        ExitCode::SUCCESS
    } else {
        println!(
            "memory: target missed (growth per 1,000 suspended calls < 1 MiB, every sampled token resumes)"
        );
        ExitCode::FAILURE
    }
}
