//! A complete legacy flow (2025-11-25 session over Streamable HTTP): `initialize` once per
//! connection, then each call's answer stream carries the server's own `elicitation/create` and
//! `sampling/createMessage` requests, answered by separate POSTs while the call stays open.

use std::time::Instant;

use serde_json::{Value, json};

use crate::flows::{Flow, answer, client_capabilities};
use crate::modern::check_text;
use crate::wire::{Messages, post, response_to, send};

const VERSION: &str = "2025-11-25";

/// One legacy session: its id, for every later POST.
pub struct Session {
    id: String,
}

impl Session {
    /// `initialize` declaring forms and sampling, then `notifications/initialized`.
    pub async fn open(client: &reqwest::Client, url: &str) -> Result<Self, String> {
        let initialize = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": VERSION, "capabilities": client_capabilities(),
            "clientInfo": { "name": "mrtr-flows", "version": "1" } } });
        let response = send(post(client, url, &initialize)).await?;
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .ok_or("initialize answered without a session id")?
            .to_owned();
        response_to(&mut Messages::new(response), 0).await?;
        let session = Self { id };
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        send(session.post(client, url, &initialized)).await?;
        Ok(session)
    }

    fn post(&self, client: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
        post(client, url, body)
            .header("Mcp-Session-Id", &self.id)
            .header("MCP-Protocol-Version", VERSION)
    }

    /// Runs `flow` once; a "round" here is the time from the call (or from posting an answer)
    /// to the next message on the call's stream.
    pub async fn run(
        &self,
        client: &reqwest::Client,
        url: &str,
        flow: &Flow,
        next_id: &mut u64,
        rounds: &mut Vec<u32>,
    ) -> Result<(), String> {
        *next_id += 1;
        let id = *next_id;
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": flow.tool, "arguments": (flow.arguments)() } });
        let mut started = Instant::now();
        let mut messages = Messages::new(send(self.post(client, url, &call)).await?);
        let mut asked = 0;
        while let Some(message) = messages.next().await? {
            rounds.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
            if let Some(method) = message.get("method").and_then(Value::as_str) {
                let Some(request_id) = message.get("id") else {
                    continue; // a notification
                };
                asked += 1;
                let request = json!({ "method": method, "params": message["params"] });
                let reply =
                    json!({ "jsonrpc": "2.0", "id": request_id, "result": answer(&request)? });
                started = Instant::now();
                // Read whole, so the connection goes back to the pool.
                let accepted = send(self.post(client, url, &reply)).await?;
                accepted.bytes().await.map_err(|e| e.to_string())?;
                continue;
            }
            if message.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if asked + 1 != flow.rounds {
                return Err(format!(
                    "{}: {asked} asks on a legacy session, expected {}",
                    flow.tool,
                    flow.rounds - 1
                ));
            }
            let result = message
                .get("result")
                .ok_or_else(|| format!("{}: {message}", flow.tool))?;
            check_text(flow, result)?;
            return messages.finish().await;
        }
        Err(format!(
            "{}: the call's stream ended without a result",
            flow.tool
        ))
    }
}
