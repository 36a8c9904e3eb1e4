//! Streamable HTTP as the load generator speaks it: a JSON-RPC POST answered with either a JSON
//! body or an SSE stream, read as events arrive.

use serde_json::Value;

/// The response to one POST, read event by event (an SSE stream) or whole (a JSON body).
pub struct Messages {
    response: reqwest::Response,
    sse: bool,
    buffer: Vec<u8>,
    done: bool,
}

impl Messages {
    pub fn new(response: reqwest::Response) -> Self {
        let sse = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        Self {
            response,
            sse,
            buffer: Vec::new(),
            done: false,
        }
    }

    /// The next JSON-RPC message, or `None` when the response has ended.
    pub async fn next(&mut self) -> Result<Option<Value>, String> {
        if !self.sse {
            if self.done {
                return Ok(None);
            }
            self.done = true;
            let body = std::mem::take(&mut self.buffer);
            let body = [body, self.read_to_end().await?].concat();
            return serde_json::from_slice(&body)
                .map(Some)
                .map_err(|error| format!("a JSON body that does not parse: {error}"));
        }
        loop {
            if let Some(message) = self.take_event()? {
                return Ok(Some(message));
            }
            match self.response.chunk().await.map_err(|e| e.to_string())? {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => return Ok(None),
            }
        }
    }

    /// Reads what is left of the response. A client that drops a half-read body loses its
    /// connection, and every round would then pay for a new one (accept, handshake, close).
    pub async fn finish(mut self) -> Result<(), String> {
        while self
            .response
            .chunk()
            .await
            .map_err(|e| e.to_string())?
            .is_some()
        {}
        Ok(())
    }

    async fn read_to_end(&mut self) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        while let Some(chunk) = self.response.chunk().await.map_err(|e| e.to_string())? {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Takes complete events off the buffer until one carries a JSON message (priming events
    /// have an empty `data:`).
    fn take_event(&mut self) -> Result<Option<Value>, String> {
        while let Some(end) = find_event_end(&self.buffer) {
            let event: Vec<u8> = self.buffer.drain(..end.0 + end.1).collect();
            let text = String::from_utf8_lossy(&event[..end.0]);
            let data: Vec<&str> = text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            let data = data.join("\n");
            if data.trim().is_empty() {
                continue;
            }
            return serde_json::from_str(&data)
                .map(Some)
                .map_err(|error| format!("an SSE event that is not JSON: {error}"));
        }
        Ok(None)
    }
}

/// Where the first event in `buffer` ends: (its length, the separator's length).
fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    for (at, window) in buffer.windows(2).enumerate() {
        if window == b"\n\n" {
            return Some((at, 2));
        }
        if window == b"\r\n" && buffer[at + 2..].starts_with(b"\r\n") {
            return Some((at, 4));
        }
    }
    None
}

/// Reads messages until the response to `id` (its `result`, or its error as `Err`).
pub async fn response_to(messages: &mut Messages, id: u64) -> Result<Value, String> {
    while let Some(message) = messages.next().await? {
        if message.get("id").and_then(Value::as_u64) != Some(id) || message.get("method").is_some()
        {
            continue;
        }
        if let Some(error) = message.get("error") {
            return Err(format!("JSON-RPC error: {error}"));
        }
        return message
            .get("result")
            .cloned()
            .ok_or_else(|| format!("a response without a result: {message}"));
    }
    Err(format!(
        "the response ended without an answer to request {id}"
    ))
}

/// A POST of one JSON-RPC message with the headers Streamable HTTP requires.
pub fn post(client: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(serde_json::to_vec(body).expect("a JSON value serializes"))
}

/// Sends `request` and fails on any status but 2xx.
pub async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    let response = request.send().await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        return Err(format!("HTTP {status}: {body}"));
    }
    Ok(response)
}
