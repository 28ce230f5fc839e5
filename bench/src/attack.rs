//! The attacks of the red-team pass on `serve --http`, at the sizes they
//! were measured at, against a real `skillhost serve --http` (this binary,
//! as a child process). Each is run alone on one server and reported as the
//! server's resident memory when it began, at its peak (sampled every
//! 100 ms), and 5 s after the attacking clients left, against the bound the
//! server must hold: 512 MiB.
//!
//! - stalled readers: 20 connections each send one `resources/read` of a
//!   15 MiB file of control bytes (which JSON would write six-fold), then
//!   never read;
//! - forged cursors: 2,000 `skills/list` requests over 2,000 skills with
//!   about 3 KB of frontmatter each, each starting after another skill;
//! - listen streams: 200 `subscriptions/listen` streams held open, each
//!   filter 40,000 copies of one URI.
//!
//! What it compares: each attack's peak against the memory the same server
//! held before it, and against the bound.

use super::child::{Served, rss_kib, serve_with};
use super::write;
use anyhow::{Context as _, Result, anyhow};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The resident memory the server must stay within under every attack.
pub const BOUND_KIB: u64 = 512 * 1024;

/// Skills in the attacked tree.
const SKILLS: usize = 2000;
/// Connections that ask for the big file and never read.
const STALLED: usize = 20;
/// The big file's size.
const BIG_BYTES: usize = 15 << 20;
/// Listen streams held open.
const STREAMS: usize = 200;
/// Copies of one URI in each stream's filter.
const COPIES: usize = 40_000;
/// `skills/list` requests in flight at once during the forged walk.
const IN_FLIGHT: usize = 16;

/// What one attack did to the server.
#[derive(Debug, Clone)]
pub struct Attack {
    /// What was sent.
    pub name: String,
    /// Resident memory (KiB) when it began, at its peak, 5 s after.
    pub rss_kib: [u64; 3],
    /// Answers the clients got, by what they were (e.g. "200", "503").
    pub answers: Vec<(String, usize)>,
}

impl Attack {
    /// Whether the peak stayed within [`BOUND_KIB`].
    pub fn within(&self) -> bool {
        self.rss_kib[1] <= BOUND_KIB
    }
}

/// Writes the attacked tree: [`SKILLS`] skills of about 3 KB of
/// frontmatter, and `big`, whose reference is the big file.
fn generate(root: &Path) -> Result<()> {
    let description = "Exercises the server's page cache with a long description. ".repeat(16);
    let metadata: String = (0..16)
        .map(|k| format!("  key-{k:02}: \"{}\"\n", "v".repeat(100)))
        .collect();
    for i in 0..SKILLS {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let text = format!(
            "---\nname: skill-{i:05}\ndescription: {description}\nmetadata:\n{metadata}---\nBody {i}.\n"
        );
        write(&dir.join("SKILL.md"), &text)?;
    }
    let big = root.join("big");
    std::fs::create_dir_all(big.join("references"))
        .with_context(|| format!("cannot create {}", big.display()))?;
    write(
        &big.join("SKILL.md"),
        "---\nname: big\ndescription: Holds a big reference\n---\nSee references/big.txt.\n",
    )?;
    let controls = vec![1u8; BIG_BYTES];
    std::fs::write(big.join("references/big.txt"), controls)
        .with_context(|| format!("cannot write {}", big.display()))?;
    Ok(())
}

/// The `_meta` a 2026-07-28 request carries (it needs no session).
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "skillhost-bench-attack", "version": "1"}
    })
}

/// One 2026-07-28 request as raw HTTP/1.1, as an attacker writes it.
fn raw_request(port: u16, method: &str, mut params: Value) -> Vec<u8> {
    let name = params
        .get("uri")
        .and_then(Value::as_str)
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The status of a raw HTTP answer's first line, or "closed".
fn status_of(head: &[u8]) -> String {
    String::from_utf8_lossy(head)
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("closed")
        .to_string()
}

/// Counts answers by kind.
fn tally(kinds: impl IntoIterator<Item = String>) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for kind in kinds {
        *counts.entry(kind).or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

/// Samples the server's resident memory every 100 ms until dropped, keeping
/// the peak.
struct Sampler {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Sampler {
    fn start(pid: u32, start: u64) -> Sampler {
        let peak = Arc::new(AtomicU64::new(start));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        tokio::spawn(async move {
            while !s.load(Ordering::Relaxed) {
                if let Ok(now) = rss_kib(pid) {
                    p.fetch_max(now, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Sampler { peak, stop }
    }

    fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Runs `attack` on the server, sampling its memory, and measures it again
/// 5 s after the attack's clients are gone.
async fn measured<F>(pid: u32, name: String, attack: F) -> Result<Attack>
where
    F: std::future::Future<Output = Result<Vec<String>>>,
{
    let start = rss_kib(pid)?;
    let sampler = Sampler::start(pid, start);
    let kinds = attack.await?;
    let peak = sampler.peak().max(rss_kib(pid)?);
    drop(sampler);
    tokio::time::sleep(Duration::from_secs(5)).await;
    Ok(Attack {
        name,
        rss_kib: [start, peak, rss_kib(pid)?],
        answers: tally(kinds),
    })
}

/// Stalled readers: each connection sends its read and reads nothing back
/// until 12 s have passed (past the 10 s a read waits for its share of the
/// budget), then only the status line, and leaves.
async fn stalled(port: u16) -> Result<Vec<String>> {
    let request = raw_request(
        port,
        "resources/read",
        json!({"uri": "skill://big/references/big.txt"}),
    );
    let mut sockets = Vec::with_capacity(STALLED);
    for _ in 0..STALLED {
        let mut socket = TcpStream::connect(("127.0.0.1", port)).await?;
        socket.write_all(&request).await?;
        sockets.push(socket);
    }
    tokio::time::sleep(Duration::from_secs(12)).await;
    let mut kinds = Vec::with_capacity(STALLED);
    for mut socket in sockets {
        let mut head = [0u8; 64];
        let n = tokio::time::timeout(Duration::from_secs(1), socket.read(&mut head))
            .await
            .unwrap_or(Ok(0))
            .unwrap_or(0);
        kinds.push(status_of(&head[..n]));
    }
    Ok(kinds)
}

/// Forged cursors: a `skills/list` starting after each skill in turn.
async fn forged(url: &str) -> Result<Vec<String>> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .context("cannot make an HTTP client")?;
    let mut kinds = Vec::with_capacity(SKILLS);
    let mut next = 0;
    while next < SKILLS {
        let batch: Vec<_> = (next..(next + IN_FLIGHT).min(SKILLS))
            .map(|i| {
                let cursor =
                    skillhost_mcp::uri::cursor("skills", &format!("skill://skill-{i:05}/SKILL.md"));
                let body = json!({"jsonrpc": "2.0", "id": i, "method": "skills/list",
                    "params": {"cursor": cursor, "_meta": meta()}});
                let request = http
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "skills/list")
                    .body(body.to_string());
                tokio::spawn(async move {
                    match request.send().await {
                        Ok(response) => {
                            let status = response.status().as_u16().to_string();
                            match response.bytes().await {
                                Ok(body) if body.windows(9).any(|w| w == b"\"skills\":") => status,
                                Ok(_) => format!("{status} without skills"),
                                Err(_) => "cut".to_string(),
                            }
                        }
                        Err(_) => "failed".to_string(),
                    }
                })
            })
            .collect();
        next += batch.len();
        for answer in batch {
            kinds.push(answer.await.context("a request task panicked")?);
        }
    }
    Ok(kinds)
}

/// Listen streams: each opened, its acknowledgement read, held open 2 s
/// once all are open, then closed.
async fn streams(port: u16) -> Result<Vec<String>> {
    let copies = vec!["skill://big/SKILL.md"; COPIES];
    let request = raw_request(
        port,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": copies}}),
    );
    let mut open = Vec::with_capacity(STREAMS);
    let mut kinds = Vec::with_capacity(STREAMS);
    for _ in 0..STREAMS {
        let mut socket = TcpStream::connect(("127.0.0.1", port)).await?;
        socket.write_all(&request).await?;
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        let acknowledged = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let n = socket.read(&mut buf).await?;
                if n == 0 {
                    return Ok::<bool, std::io::Error>(false);
                }
                head.extend_from_slice(&buf[..n]);
                if head.windows(26).any(|w| w == b"subscriptions/acknowledged") {
                    return Ok(true);
                }
            }
        })
        .await;
        let status = status_of(&head);
        kinds.push(match acknowledged {
            Ok(Ok(true)) => format!("{status} acknowledged"),
            Ok(_) => format!("{status} closed"),
            Err(_) => format!("{status} no acknowledgement in 10 s"),
        });
        open.push(socket);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    drop(open);
    Ok(kinds)
}

/// Runs the three attacks, one after another, on one server.
pub fn run(window: Duration) -> Result<Vec<Attack>> {
    let tree = tempfile::tempdir().context("cannot make a temporary folder")?;
    let root = tree.path().join("skills");
    generate(&root)?;
    let served: Served = serve_with(&root, 500, window, &[])?;
    let port: u16 = served
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .map_err(|_| anyhow!("bench: cannot read the port of {}", served.url))?;
    let pid = served.pid();
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    tokio.block_on(async {
        // Let the server settle on its catalog before the first figure.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let attacks = vec![
            measured(
                pid,
                format!(
                    "{STALLED} stalled reads of a {} MiB file of control bytes",
                    BIG_BYTES >> 20
                ),
                stalled(port),
            )
            .await?,
            measured(
                pid,
                format!(
                    "{SKILLS} forged skills/list cursors over {SKILLS} skills of ~3 KB frontmatter"
                ),
                forged(&served.url),
            )
            .await?,
            measured(
                pid,
                format!("{STREAMS} listen streams, each filter {COPIES} copies of one URI"),
                streams(port),
            )
            .await?,
        ];
        Ok(attacks)
    })
}
