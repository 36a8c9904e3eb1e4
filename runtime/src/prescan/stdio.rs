//! The pre-scan on stdio: a line filter between the process's stdin/stdout and rmcp's
//! transport.
//!
//! rmcp gets one end of an in-memory pipe as its transport. One task reads the real input line
//! by line (bounded like rmcp's own reader), answers the lines [`Prescan`] refuses and writes
//! every other line, unchanged, into the pipe; a second task copies what rmcp writes to the real
//! output and slips the refusals in between whole lines, so two messages never interleave.

use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
    ReadHalf, WriteHalf,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Prescan;

/// Room in the pipe each way; a slow reader on either side holds the other back, as stdio would.
const PIPE_BYTES: usize = 64 * 1024;

/// Refusals written ahead of the output: past that, reading the input waits, so a client that
/// floods malformed requests without reading its replies is held back, not buffered for.
const REFUSALS_IN_FLIGHT: usize = 32;

/// Lines longer than this are not scanned: they are passed on as they come and rmcp's reader,
/// which has the same default limit, discards them.
pub const DEFAULT_MAX_LINE_LENGTH: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// A line filter running [`Prescan`] in front of rmcp's stdio transport.
///
/// ```ignore
/// let prescan = mrtr::prescan::Prescan::new(runtime.limits().clone());
/// let (transport, flushed) =
///     mrtr::prescan::StdioFilter::new(prescan).spawn(tokio::io::stdin(), tokio::io::stdout());
/// server.serve(transport).await?.waiting().await?;
/// flushed.await?; // everything rmcp wrote has reached stdout
/// ```
#[derive(Clone, Debug)]
pub struct StdioFilter {
    prescan: Prescan,
    max_line_length: usize,
}

/// [`StdioFilter`] over the process's own stdin and stdout.
pub fn stdio(prescan: Prescan) -> (DuplexStream, JoinHandle<()>) {
    StdioFilter::new(prescan).spawn(tokio::io::stdin(), tokio::io::stdout())
}

impl StdioFilter {
    pub fn new(prescan: Prescan) -> Self {
        Self {
            prescan,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
        }
    }

    /// Keep it equal to the rmcp transport's `with_max_line_length`, if you set that.
    pub fn with_max_line_length(mut self, max_line_length: usize) -> Self {
        self.max_line_length = max_line_length;
        self
    }

    /// Starts filtering `read` into, and out of, the returned stream: serve rmcp on it. The
    /// handle finishes once everything rmcp wrote has been written to `write` (await it after
    /// the service ends, before the process exits). Must be called inside a Tokio runtime.
    pub fn spawn<R, W>(self, read: R, write: W) -> (DuplexStream, JoinHandle<()>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (ours, rmcp_end) = tokio::io::duplex(PIPE_BYTES);
        let (from_rmcp, to_rmcp) = tokio::io::split(ours);
        let (refusals, pending) = mpsc::channel(REFUSALS_IN_FLIGHT);
        tokio::spawn(self.filter_input(read, to_rmcp, refusals));
        let flushed = tokio::spawn(merge_output(from_rmcp, write, pending));
        (rmcp_end, flushed)
    }

    async fn filter_input<R: AsyncRead + Unpin>(
        self,
        read: R,
        mut to_rmcp: WriteHalf<DuplexStream>,
        refusals: mpsc::Sender<Vec<u8>>,
    ) {
        let mut read = BufReader::new(read);
        let mut line = Vec::new();
        // Set while the tail of a line too long to scan is passed through.
        let mut passing_through = false;
        loop {
            let available = match read.fill_buf().await {
                Ok(available) => available,
                Err(error) => {
                    tracing::debug!(target: "mrtr", %error, "stdio input failed");
                    break;
                }
            };
            if available.is_empty() {
                // An unterminated last line is rmcp's to judge (it drops it).
                let _ = to_rmcp.write_all(&line).await;
                break;
            }
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            if !passing_through && line.len() + take > self.max_line_length {
                if to_rmcp.write_all(&line).await.is_err() {
                    break;
                }
                line = Vec::new();
                passing_through = true;
            }
            if passing_through {
                if to_rmcp.write_all(&available[..take]).await.is_err() {
                    break;
                }
                read.consume(take);
                passing_through = newline.is_none();
                continue;
            }
            line.extend_from_slice(&available[..take]);
            read.consume(take);
            if newline.is_none() {
                continue;
            }
            let passed = match self.prescan.refusal(message_of(&line)) {
                Some(mut reply) => {
                    reply.push(b'\n');
                    refusals.send(reply).await.is_ok()
                }
                None => to_rmcp.write_all(&line).await.is_ok(),
            };
            if !passed {
                break;
            }
            line.clear();
            line.shrink_to(PIPE_BYTES);
        }
        let _ = to_rmcp.shutdown().await;
    }
}

/// The message a line carries, as rmcp's reader sees it: no line ending, no byte order mark.
fn message_of(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// Copies rmcp's output to `write` unchanged, writing each refusal only where a line ends.
async fn merge_output<W: AsyncWrite + Unpin>(
    mut from_rmcp: ReadHalf<DuplexStream>,
    mut write: W,
    mut refusals: mpsc::Receiver<Vec<u8>>,
) {
    let mut buffer = vec![0u8; PIPE_BYTES];
    let mut at_line_start = true;
    let mut refusals_open = true;
    loop {
        // Both branches are cancel-safe: `recv` loses no message and `read` no byte when the
        // other one wins.
        let written = tokio::select! {
            refusal = refusals.recv(), if at_line_start && refusals_open => match refusal {
                Some(reply) => write.write_all(&reply).await,
                None => {
                    refusals_open = false;
                    continue;
                }
            },
            read = from_rmcp.read(&mut buffer) => match read {
                Ok(0) | Err(_) => {
                    // rmcp is done (its input ended, or it stopped): the refusals of lines read
                    // before that are still owed, and they are all queued by now, since the
                    // input side queues a refusal before it reads on.
                    if at_line_start {
                        while let Ok(reply) = refusals.try_recv() {
                            if write.write_all(&reply).await.is_err() {
                                break;
                            }
                        }
                    }
                    break;
                }
                Ok(n) => {
                    at_line_start = buffer[n - 1] == b'\n';
                    write.write_all(&buffer[..n]).await
                }
            },
        };
        if written.is_err() || write.flush().await.is_err() {
            break;
        }
    }
    let _ = write.flush().await;
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    use super::*;

    /// The filter with an echo "server" behind it that answers every line it gets with
    /// `{"echo": <line>}`, so a test sees exactly what reached rmcp and what was answered.
    async fn filtered(max_line_length: usize, input: &[u8]) -> Vec<Value> {
        let (client_in, filter_in) = tokio::io::duplex(1 << 20);
        let (filter_out, client_out) = tokio::io::duplex(1 << 20);
        let (rmcp_end, flushed) = StdioFilter::new(Prescan::default())
            .with_max_line_length(max_line_length)
            .spawn(filter_in, filter_out);
        tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(rmcp_end);
            let mut read = BufReader::new(read);
            let mut line = Vec::new();
            while read.read_until(b'\n', &mut line).await.is_ok_and(|n| n > 0) {
                let echo = String::from_utf8_lossy(&line).into_owned();
                let mut reply = serde_json::to_vec(&json!({ "echo": echo })).unwrap();
                reply.push(b'\n');
                write.write_all(&reply).await.unwrap();
                line.clear();
            }
        });
        let mut client_in = client_in;
        client_in.write_all(input).await.unwrap();
        drop(client_in);
        flushed.await.unwrap();
        let mut lines = BufReader::new(client_out).lines();
        let mut out = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            out.push(serde_json::from_str(&line).expect("every output line is one JSON message"));
        }
        out
    }

    #[tokio::test]
    async fn refused_lines_are_answered_and_the_rest_reach_rmcp_byte_for_byte() {
        let good = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",  \"params\":{\"name\":\"t\"}}\r\n";
        let bad = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"_meta\":1}}\n";
        let noise = "not json\n";
        let out = filtered(1 << 20, format!("{good}{bad}{noise}").as_bytes()).await;
        let echoes: Vec<&str> = out.iter().filter_map(|m| m["echo"].as_str()).collect();
        assert_eq!(echoes, [good, noise]);
        let refusal = out
            .iter()
            .find(|m| m.get("error").is_some())
            .expect("answered");
        assert_eq!(refusal["id"], 2);
        assert_eq!(refusal["error"]["data"]["field"], "_meta");
    }

    #[tokio::test]
    async fn a_line_too_long_to_scan_is_passed_on_unscanned() {
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\",\"_meta\":1}}}}\n",
            "x".repeat(300)
        );
        let out = filtered(100, long.as_bytes()).await;
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["echo"], long);
    }
}
