//! What the size limits cost, measured against a baseline in the same run.
//!
//! - A 3 MB carried value: one `tools/call` on 2026-07-28 whose handler builds a 3 MB string
//!   and then asks, carrying it (refused: over `MRTR_STATE_MAX_BYTES`), against the same handler
//!   returning without an ask. Before the limit was checked up front, the refusal came after an
//!   8 MB token had been built.
//! - A 100,000-key `inputResponses`: one round (refused: over the 64-key limit) against the same
//!   round with one key.
//! - The same 100,000-key round as raw lines over stdio, the way a client's bytes arrive: served
//!   as the examples serve it (`serve_stream` behind the pre-scan, which counts the keys without
//!   decoding anything) against the old path (plain rmcp, which decodes the whole message before
//!   mrtr's key limit sees it). The pre-scanned path is the one timed against its baseline.
//!
//! Each pair prints its time ratio and the peak heap of one call (a counting allocator), then
//! criterion times each side. Run: `cargo bench -p mrtr-tests --bench limits`.

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use mrtr::prescan::Prescan;
use mrtr::testing::*;
use mrtr::{ask, mrtr_tool};
use mrtr_tests::heap::{Counting, peak_of};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};
use tokio::io::{WriteHalf, split};

#[global_allocator]
static HEAP: Counting = Counting;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

const CARRIED_BYTES: usize = 3 * 1024 * 1024;

struct Bench;

#[tool_router]
impl Bench {
    #[mrtr_tool]
    #[tool(description = "builds 3 MB and returns")]
    async fn without_ask(&self) -> Result<CallToolResult, ErrorData> {
        let payload = "x".repeat(CARRIED_BYTES);
        Ok(CallToolResult::success(vec![ContentBlock::text(
            payload.len().to_string(),
        )]))
    }

    #[mrtr_tool]
    #[tool(description = "builds 3 MB and carries it across an ask")]
    async fn carrying(&self) -> Result<CallToolResult, ErrorData> {
        let payload = "x".repeat(CARRIED_BYTES);
        let _ = ask!(confirm: elicit::<Confirm>("Keep it?"));
        Ok(CallToolResult::success(vec![ContentBlock::text(
            payload.len().to_string(),
        )]))
    }

    #[mrtr_tool]
    #[tool(description = "asks once")]
    async fn confirm(&self) -> Result<CallToolResult, ErrorData> {
        let _ = ask!(confirm: elicit::<Confirm>("Go?"));
        Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
    }
}

fn responses(keys: usize) -> Value {
    let mut map = Map::new();
    for i in 0..keys {
        map.insert(
            format!("k{i}"),
            json!({"action": "accept", "content": {"ok": true}}),
        );
    }
    Value::Object(map)
}

/// A client writing raw JSON-RPC lines to a server served on a pipe as the examples serve stdio.
struct RawLines {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: u64,
}

impl RawLines {
    fn serve(prescan: Option<Prescan>) -> Self {
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        let server = TestServer::new(Bench, Bench::tool_router(), test_runtime("bench"));
        tokio::spawn(async move {
            let (read, write) = split(server_end);
            let _ = mrtr_examples::serve_stream(server, prescan, read, write).await;
        });
        let (read, write) = split(client_end);
        RawLines {
            write,
            lines: BufReader::new(read).lines(),
            next_id: 1,
        }
    }

    /// A 2026-07-28 `tools/call` of `confirm` carrying `responses`, as one line without its id:
    /// [`RawLines::call`] puts a fresh id in front.
    fn line_of(responses: &Value) -> Vec<u8> {
        let params = json!({
            "name": "confirm", "arguments": {}, "inputResponses": responses,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            },
        });
        let mut rest = serde_json::to_vec(
            &json!({ "jsonrpc": "2.0", "method": "tools/call", "params": params }),
        )
        .expect("JSON");
        rest.remove(0); // the `{`, which the id prefix brings back
        rest.push(b'\n');
        rest
    }

    fn request(&mut self, rest: &[u8]) -> (u64, Vec<u8>) {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = format!("{{\"id\":{id},").into_bytes();
        line.extend_from_slice(rest);
        (id, line)
    }

    /// Writes `line` and reads until the reply to `id`; returns its error code, if any.
    async fn call(&mut self, id: u64, line: Vec<u8>) -> Option<i64> {
        self.write.write_all(&line).await.expect("the server reads");
        drop(line);
        loop {
            let reply = self
                .lines
                .next_line()
                .await
                .expect("readable")
                .expect("a reply");
            let reply: Value = serde_json::from_str(&reply).expect("a JSON line");
            if reply["id"] == json!(id) {
                return reply["error"]["code"].as_i64();
            }
        }
    }
}

fn limits(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let session = rt.block_on(connect(
        TestServer::new(Bench, Bench::tool_router(), test_runtime("bench")),
        ScriptedClient::new(Caps::ALL),
        Era::Modern,
    ));
    let call = |tool: &str, responses: Option<Value>| {
        rt.block_on(session.round(tool, json!({}), responses, None))
    };
    let time = |tool: &str, responses: &Option<Value>| {
        let started = Instant::now();
        for _ in 0..5 {
            let _ = call(tool, responses.clone());
        }
        started.elapsed().as_secs_f64() / 5.0
    };

    // The refusals are what this measures: check they happen.
    let (code, _) = expect_rpc_error(call("carrying", None));
    assert_eq!(code, -32603);
    let (code, _) = expect_rpc_error(call("confirm", Some(responses(100_000))));
    assert_eq!(code, -32602);

    let one = Some(responses(1));
    let many = Some(responses(100_000));
    for (label, (base_tool, base), (tool, input)) in [
        ("3 MB carried", ("without_ask", None), ("carrying", None)),
        (
            "100,000 keys",
            ("confirm", one.clone()),
            ("confirm", many.clone()),
        ),
    ] {
        let (_, base_peak) = peak_of(|| call(base_tool, base.clone()));
        let (_, peak) = peak_of(|| call(tool, input.clone()));
        let (base_time, time) = (time(base_tool, &base), time(tool, &input));
        println!(
            "{label}: refused in {:.2} ms vs baseline {:.2} ms = {:.2}x; peak heap {:.1} MB vs {:.1} MB = {:.2}x",
            time * 1e3,
            base_time * 1e3,
            time / base_time,
            peak as f64 / 1e6,
            base_peak as f64 / 1e6,
            peak as f64 / base_peak.max(1) as f64,
        );
    }

    // The same refusal from raw bytes: pre-scanned, against rmcp decoding the message first.
    let _entered = rt.enter();
    let mut prescanned = RawLines::serve(Some(Prescan::default()));
    let mut decoded = RawLines::serve(None);
    let many_line = RawLines::line_of(many.as_ref().expect("responses"));
    let one_line = RawLines::line_of(one.as_ref().expect("responses"));
    let raw = |lines: &mut RawLines, rest: &[u8]| {
        let (id, line) = lines.request(rest);
        let (code, peak) = peak_of(|| rt.block_on(lines.call(id, line)));
        (code, peak)
    };
    let (code, _) = raw(&mut prescanned, &many_line);
    assert_eq!(code, Some(-32602), "the pre-scan refuses the 100,000 keys");
    let (code, _) = raw(&mut decoded, &many_line);
    assert_eq!(
        code,
        Some(-32602),
        "mrtr's key limit refuses them after rmcp decoded them"
    );
    let time_raw = |lines: &mut RawLines, rest: &[u8]| {
        let started = Instant::now();
        for _ in 0..5 {
            let (id, line) = lines.request(rest);
            rt.block_on(lines.call(id, line));
        }
        started.elapsed().as_secs_f64() / 5.0
    };
    let (_, base_peak) = raw(&mut prescanned, &one_line);
    let (_, new_peak) = raw(&mut prescanned, &many_line);
    let (_, old_peak) = raw(&mut decoded, &many_line);
    let base_time = time_raw(&mut prescanned, &one_line);
    let new_time = time_raw(&mut prescanned, &many_line);
    let old_time = time_raw(&mut decoded, &many_line);
    println!(
        "100,000 keys over stdio ({:.1} MB line): pre-scanned {:.2} ms vs decoded by rmcp {:.2} ms = {:.3}x; \
         peak heap {:.1} MB vs {:.1} MB = {:.3}x (one key, pre-scanned: {:.2} ms, {:.2} MB)",
        many_line.len() as f64 / 1e6,
        new_time * 1e3,
        old_time * 1e3,
        new_time / old_time,
        new_peak as f64 / 1e6,
        old_peak as f64 / 1e6,
        new_peak as f64 / old_peak.max(1) as f64,
        base_time * 1e3,
        base_peak as f64 / 1e6,
    );

    let mut group = c.benchmark_group("limits");
    group.sample_size(10);
    group.bench_function("3mb/without_ask (baseline)", |b| {
        b.iter(|| call("without_ask", None))
    });
    group.bench_function("3mb/carried, refused", |b| {
        b.iter(|| call("carrying", None))
    });
    group.bench_function("keys/1 (baseline)", |b| {
        b.iter(|| call("confirm", one.clone()))
    });
    group.bench_function("keys/100000, refused", |b| {
        b.iter(|| call("confirm", many.clone()))
    });
    group.bench_function("stdio keys/100000, pre-scanned", |b| {
        b.iter(|| {
            let (id, line) = prescanned.request(&many_line);
            rt.block_on(prescanned.call(id, line))
        })
    });
    group.bench_function("stdio keys/100000, decoded by rmcp", |b| {
        b.iter(|| {
            let (id, line) = decoded.request(&many_line);
            rt.block_on(decoded.call(id, line))
        })
    });
    group.finish();
}

criterion_group!(benches, limits);
criterion_main!(benches);
