//! `skillhost serve` as a user runs it, and the clients the tests drive it
//! with, installed by `scripts/ensure-mcp-tools` into `.tools/`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A tool from `.tools/`; a clear failure when it was not installed.
pub fn tool(relative: &str) -> PathBuf {
    let path = workspace().join(".tools").join(relative);
    assert!(
        path.exists(),
        "{} is missing: run scripts/ensure-mcp-tools first (CI does, see .ci/run)",
        path.display()
    );
    path
}

pub fn skillhost() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skillhost"))
}

pub fn cache_dir() -> PathBuf {
    skillhost_tests::process_cache_dir()
}

/// A folder of skills (`skills/` inside a temporary folder, which is also
/// the server's working folder and home).
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Fixture {
    pub fn new(files: &[(&str, &[u8])]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("skills");
        std::fs::create_dir_all(&root).unwrap();
        // The home's own state folder (the default one: a test reads a
        // record from it) holds the key the tests' compile cache is under.
        skillhost_tests::share_cache_key(&dir.path().join(".local/state/skillhost"));
        for (path, bytes) in files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, bytes).unwrap();
        }
        Fixture { _dir: dir, root }
    }

    pub fn base(&self) -> PathBuf {
        self.root.parent().unwrap().to_path_buf()
    }

    /// `skillhost ARGS`, run here as a user would.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(skillhost());
        command
            .args(args)
            .current_dir(self.base())
            .env("HOME", self.base())
            .env("SKILLHOST_CACHE_DIR", cache_dir());
        command
    }
}

/// `skillhost serve --http 127.0.0.1:0 --no-bundled --root ROOT`, killed
/// when dropped; its standard error is kept.
pub struct Server {
    child: Child,
    pub url: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(fixture: &Fixture, extra: &[&str]) -> Server {
        let root = fixture.root.to_str().unwrap();
        let mut args = vec![
            "serve",
            "--http",
            "127.0.0.1:0",
            "--no-bundled",
            "--root",
            root,
        ];
        args.extend_from_slice(extra);
        let mut child = fixture
            .command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("skillhost serve starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let pipe = child.stderr.take().unwrap();
        let kept = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("skillhost: MCP listening on ") {
                    let _ = tx.send(url.to_string());
                }
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no URL printed; stderr: {}", stderr.lock().unwrap()));
        Server { child, url, stderr }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until standard error holds `text`.
    pub fn until_logged(&self, text: &str) -> String {
        let started = Instant::now();
        loop {
            let stderr = self.stderr();
            if stderr.contains(text) {
                return stderr;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{text:?} never logged; stderr: {stderr}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs an external client to completion, as `Command::output` does, but
/// kills it after `limit`: a client stuck on a server that never answers
/// must fail the test with what it printed, not hang the suite.
pub fn output_within(command: &mut Command, limit: Duration) -> std::process::Output {
    use std::io::Read;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let out = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned();
            let err = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
            panic!("{command:?} did not finish within {limit:?}; stdout: {out}\nstderr: {err}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// `skillhost serve ARGS` on stdio, initialized as an MCP client would
/// (2025-11-25), answering one JSON-RPC request at a time; killed when
/// dropped.
pub struct StdioServer {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl StdioServer {
    pub fn start(fixture: &Fixture, args: &[&str]) -> StdioServer {
        use std::io::Write;
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let mut child = fixture
            .command(&all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("skillhost serve starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut server = StdioServer {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = server.call(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "skillhost-test", "version": "1"}}),
        );
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        let stdin = server.stdin.as_mut().unwrap();
        writeln!(
            stdin,
            "{}",
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        server
    }

    /// Sends one request and returns its answer (notifications the server
    /// sends meanwhile are skipped).
    pub fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::Write;
        let id = self.next_id;
        self.next_id += 1;
        let request =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if message["id"] == serde_json::json!(id) {
                return message;
            }
        }
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
