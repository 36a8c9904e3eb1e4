//! A complete 2026-07-28 flow: call, answer every `inputRequests` entry, retry under a new id
//! with `inputResponses` and the untouched `requestState`, until the result is complete.

use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::flows::{Flow, answer, client_capabilities, result_text};
use crate::wire::{Messages, post, response_to, send};

/// Runs `flow` once on `client` (one kept-alive connection); records each round's latency in
/// microseconds into `rounds`.
pub async fn run(
    client: &reqwest::Client,
    url: &str,
    flow: &Flow,
    next_id: &mut u64,
    rounds: &mut Vec<u32>,
) -> Result<(), String> {
    let arguments = (flow.arguments)();
    let mut answers: Option<Map<String, Value>> = None;
    let mut state: Option<Value> = None;
    for round in 1..=flow.rounds {
        *next_id += 1;
        let body = request(
            *next_id,
            flow.tool,
            &arguments,
            answers.take(),
            state.take(),
        );
        let started = Instant::now();
        let response = send(
            post(client, url, &body)
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", flow.tool),
        )
        .await?;
        let mut messages = Messages::new(response);
        let result = response_to(&mut messages, *next_id).await?;
        rounds.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
        messages.finish().await?;
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") if round < flow.rounds => {
                answers = Some(answer_all(&result["inputRequests"])?);
                state = result.get("requestState").cloned();
            }
            Some("complete") | None if round == flow.rounds => {
                return check_text(flow, &result);
            }
            other => {
                return Err(format!(
                    "{}: round {round} of {} answered resultType {other:?}: {result}",
                    flow.tool, flow.rounds
                ));
            }
        }
    }
    unreachable!("the last round returns")
}

/// The final text must be the one every server of these tools gives.
pub fn check_text(flow: &Flow, result: &Value) -> Result<(), String> {
    match result_text(result) {
        Some(text) if text.starts_with(flow.result_starts_with) => Ok(()),
        _ => Err(format!("{}: unexpected result {result}", flow.tool)),
    }
}

fn answer_all(requests: &Value) -> Result<Map<String, Value>, String> {
    let requests = requests
        .as_object()
        .ok_or("input_required without inputRequests")?;
    requests
        .iter()
        .map(|(key, request)| Ok((key.clone(), answer(request)?)))
        .collect()
}

fn request(
    id: u64,
    tool: &str,
    arguments: &Value,
    answers: Option<Map<String, Value>>,
    state: Option<Value>,
) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
            "io.modelcontextprotocol/clientInfo": { "name": "mrtr-flows", "version": "1" },
        },
    });
    if let Some(answers) = answers {
        params["inputResponses"] = Value::Object(answers);
    }
    if let Some(state) = state {
        params["requestState"] = state;
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}
