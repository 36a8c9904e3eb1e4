//! The counters an operator scrapes move with the rounds: a two-round call and a replay refused
//! as spent, seen through a `metrics` recorder installed the way a server installs its exporter.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use metrics::{
    Counter, CounterFn, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};
use mrtr::testing::*;
use mrtr::{ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde_json::json;

/// Counter values by name and sorted labels, e.g. `mrtr_rejections_total{reason=spent}`.
#[derive(Default, Clone)]
struct Counters(Arc<Mutex<BTreeMap<String, Arc<AtomicU64>>>>);

struct Cell(Arc<AtomicU64>);

impl CounterFn for Cell {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::SeqCst);
    }
    fn absolute(&self, value: u64) {
        self.0.store(value, Ordering::SeqCst);
    }
}

impl Counters {
    fn get(&self, name: &str) -> u64 {
        self.0
            .lock()
            .unwrap()
            .get(name)
            .map_or(0, |cell| cell.load(Ordering::SeqCst))
    }
}

impl Recorder for Counters {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let mut labels: Vec<String> = key
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        labels.sort();
        let name = format!("{}{{{}}}", key.name(), labels.join(","));
        let cell = self.0.lock().unwrap().entry(name).or_default().clone();
        Counter::from_arc(Arc::new(Cell(cell)))
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Clone, Default)]
struct Observed;

#[tool_router]
impl Observed {
    #[mrtr_tool]
    #[tool(description = "asks once")]
    async fn observed(&self) -> Result<CallToolResult, ErrorData> {
        let confirm = ask!(confirm: elicit::<Confirm>("Go?"));
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{ok}"
        ))]))
    }
}

#[tokio::test]
async fn rounds_suspensions_completions_and_rejections_are_counted_by_reason() {
    let counters = Counters::default();
    metrics::set_global_recorder(counters.clone()).expect("the only recorder of this test binary");
    let server = TestServer::new(
        Observed,
        Observed::tool_router(),
        single_use_runtime("observed"),
    );
    let session = connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await;
    let first = expect_input_required(session.round("observed", json!({}), None, None).await);
    let answer = json!({ "confirm": { "action": "accept", "content": { "ok": true } } });
    let state = first.request_state.clone();
    expect_complete(
        session
            .round("observed", json!({}), Some(answer.clone()), state.clone())
            .await,
    );
    let (code, _) = expect_rpc_error(
        session
            .round("observed", json!({}), Some(answer.clone()), state)
            .await,
    );
    assert_eq!(code, -32602);
    let (code, _) = expect_rpc_error(
        session
            .round(
                "observed",
                json!({}),
                Some(answer),
                Some("x1.k9.AAAA".into()),
            )
            .await,
    );
    assert_eq!(code, -32602);
    session.close().await;

    let handler = "observability::observed";
    let rounds = format!("mrtr_rounds_total{{era=2026-07-28,handler={handler}}}");
    assert_eq!(
        counters.get(&rounds),
        2,
        "the first round and the resumption; refused rounds never open"
    );
    let suspensions = format!("mrtr_suspensions_total{{handler={handler},step=AfterConfirm}}");
    assert_eq!(counters.get(&suspensions), 1);
    assert_eq!(counters.get("mrtr_completions_total{kind=tool}"), 1);
    assert_eq!(counters.get("mrtr_rejections_total{reason=spent}"), 1);
    assert_eq!(
        counters.get("mrtr_rejections_total{reason=malformed}")
            + counters.get("mrtr_rejections_total{reason=unknown_kid}"),
        1
    );
}
