//! A server under test: started as a child process on a free loopback port, watched through
//! `/proc/<pid>/stat` for the CPU it spends, stopped when the benchmark ends.

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One `--server` / `--legacy` argument: `LABEL=COMMAND ARGS..`, where `{port}` and `{addr}`
/// in the arguments stand for the port chosen for it.
#[derive(Clone, Debug)]
pub struct ServerSpec {
    pub label: String,
    pub command: Vec<String>,
}

impl ServerSpec {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (label, command) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}`: expected LABEL=COMMAND ARGS.."))?;
        let command: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        if command.is_empty() {
            return Err(format!("`{text}`: no command"));
        }
        Ok(Self {
            label: label.trim().to_owned(),
            command,
        })
    }
}

/// A running server.
pub struct Server {
    pub label: String,
    pub url: String,
    child: Child,
    /// The server's stderr, kept in a file: a pipe nobody reads would block a chatty server.
    log: PathBuf,
}

impl Server {
    /// Starts `spec` on a free port and waits (up to `timeout`) until it accepts connections.
    pub fn start(spec: &ServerSpec, timeout: Duration) -> Result<Self, String> {
        let port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let fill = |arg: &String| {
            arg.replace("{addr}", &addr)
                .replace("{port}", &port.to_string())
        };
        let program = fill(&spec.command[0]);
        let log = std::env::temp_dir().join(format!("mrtr-flows-{port}.log"));
        let stderr = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let child = Command::new(&program)
            .args(spec.command[1..].iter().map(fill))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(|error| format!("{}: cannot start {program}: {error}", spec.label))?;
        let mut server = Self {
            label: spec.label.clone(),
            url: format!("http://{addr}/mcp"),
            child,
            log,
        };
        server.wait_until_listening(addr.parse().expect("a socket address"), timeout)?;
        Ok(server)
    }

    fn wait_until_listening(&mut self, addr: SocketAddr, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().map_err(|e| e.to_string())? {
                let stderr = self.stderr();
                return Err(format!(
                    "{} exited with {status} before listening:\n{stderr}",
                    self.label
                ));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{} did not listen on {addr} within {timeout:?}",
                    self.label
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The server's process id (valgrind's, when it runs under valgrind: the same process).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time (user + system) the server process has used so far.
    pub fn cpu(&self) -> Result<Duration, String> {
        process_cpu(self.child.id())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// A port nobody listens on right now (the server binds it a moment later).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// `utime + stime` of `pid` from `/proc/<pid>/stat`, all threads included.
pub fn process_cpu(pid: u32) -> Result<Duration, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|error| format!("/proc/{pid}/stat: {error}"))?;
    // The command name is in parentheses and may hold spaces: count fields after the last `)`.
    let after = &stat[stat.rfind(')').ok_or("a stat line without `)`")? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime) are the 12th and 13th after the name.
    let ticks = |index: usize| -> Result<u64, String> {
        fields
            .get(index)
            .and_then(|field| field.parse().ok())
            .ok_or_else(|| format!("/proc/{pid}/stat: no field {}", index + 3))
    };
    let total = ticks(11)? + ticks(12)?;
    Ok(Duration::from_nanos(
        total * 1_000_000_000 / clock_ticks_per_second(),
    ))
}

/// `sysconf(_SC_CLK_TCK)`: 100 on every Linux the benchmark runs on; `getconf` confirms it.
fn clock_ticks_per_second() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(100)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_spec_is_a_label_and_a_command() {
        let spec = ServerSpec::parse("rmcp by hand=target/release/x --http {addr}").unwrap();
        assert_eq!(spec.label, "rmcp by hand");
        assert_eq!(spec.command, ["target/release/x", "--http", "{addr}"]);
        assert!(ServerSpec::parse("no command").is_err());
        assert!(ServerSpec::parse("label=").is_err());
    }

    #[test]
    fn this_process_has_spent_some_cpu() {
        let spin = Instant::now();
        while spin.elapsed() < Duration::from_millis(30) {}
        assert!(process_cpu(std::process::id()).unwrap() > Duration::ZERO);
    }
}
