//! What the size limits cost, measured against a baseline in the same run.
//!
//! - A 3 MB carried value: one `tools/call` on 2026-07-28 whose handler builds a 3 MB string
//!   and then asks, carrying it (refused: over `MRTR_STATE_MAX_BYTES`), against the same handler
//!   returning without an ask. Before the limit was checked up front, the refusal came after an
//!   8 MB token had been built.
//! - A 100,000-key `inputResponses`: one round (refused: over the 64-key limit) against the same
//!   round with one key.
//!
//! Each pair prints its time ratio and the peak heap of one call (a counting allocator), then
//! criterion times each side. Run: `cargo bench -p mrtr-tests --bench limits`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use mrtr::{ask, mrtr_tool};
use mrtr_tests::harness::*;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Tracks live heap bytes and their peak, so one call's peak can be read off.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

/// Peak heap above what was live before `f`, in bytes.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(before))
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
    group.finish();
}

criterion_group!(benches, limits);
criterion_main!(benches);
