//! `--demo`: the seed guide's three-message exchange, played against a real server in this
//! process so a newcomer can watch MRTR work without installing a client.
//!
//! The server runs on rmcp's stdio-style transport over an in-memory pipe; the "client" writes
//! the exact JSON-RPC lines a 2026-07-28 client sends and prints everything both sides say.

use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::ops::Ops;

type DemoResult = Result<(), Box<dyn std::error::Error>>;

/// Calls `deploy_service`, answers the `input_required` result, and prints all three messages.
pub async fn play_deploy<S: ServerHandler>(server: S, ops: &Ops) -> DemoResult {
    let (client_side, server_side) = tokio::io::duplex(64 * 1024);
    let running = tokio::spawn(async move {
        if let Ok(service) = server.serve(server_side).await {
            let _ = service.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(read).lines();

    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
        "io.modelcontextprotocol/clientInfo": { "name": "mrtr-demo", "version": "1.0.0" }
    });
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "deploy_service", "arguments": { "service": "checkout-api" }, "_meta": meta }
    });
    println!("1. The original request (client → server):");
    let first = exchange(&mut write, &mut lines, &call).await?;
    println!("2. The server cannot finish yet; it answers with input_required (server → client):");
    print_json(&first);

    let result = &first["result"];
    if result["resultType"] != "input_required" {
        return Err("the server did not ask for input".into());
    }
    let retry = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {
            "name": "deploy_service",
            "arguments": { "service": "checkout-api" },
            "inputResponses": { "target_env": { "action": "accept", "content": { "environment": "staging" } } },
            "requestState": result["requestState"],
            "_meta": meta
        }
    });
    println!(
        "3. The user picks staging; the client retries the same call under a new id (client → server):"
    );
    let last = exchange(&mut write, &mut lines, &retry).await?;
    println!("   ... and gets the final result (server → client):");
    print_json(&last);

    println!(
        "What ran on the server, in order (the plan was built once, the deploy came after the answer):"
    );
    for line in ops.log() {
        println!("   {line}");
    }
    drop(write);
    running.abort();
    Ok(())
}

async fn exchange<W, R>(
    write: &mut W,
    lines: &mut tokio::io::Lines<R>,
    message: &Value,
) -> Result<Value, Box<dyn std::error::Error>>
where
    W: AsyncWriteExt + Unpin,
    R: tokio::io::AsyncBufRead + Unpin,
{
    print_json(message);
    let mut encoded = serde_json::to_vec(message)?;
    encoded.push(b'\n');
    write.write_all(&encoded).await?;
    write.flush().await?;
    let wanted = message["id"].clone();
    // Skip notifications; the response is the line that carries our id.
    while let Some(line) = lines.next_line().await? {
        let reply: Value = serde_json::from_str(&line)?;
        if reply["id"] == wanted {
            return Ok(reply);
        }
    }
    Err("the server closed the connection".into())
}

fn print_json(value: &Value) {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    for line in pretty.lines() {
        println!("   {line}");
    }
    println!();
}
