//! `skillhost bench --serve`: the MCP server as its clients see it. A real
//! `skillhost serve --http` (this same binary, as a child process) over a
//! generated tree, and rmcp's own client on loopback:
//!
//! - `skills/list` of the whole catalog, every page, over plain HTTP on a
//!   2025-11-25 session: the request sent until the last byte of the last
//!   page is in, each page parsed only for its cursor and its count. This is
//!   the server's figure; the target (p50 ≤ 5 ms for 1,000 skills) is about it;
//! - the same through rmcp's client on 2026-07-28 (and its first page
//!   alone), which adds what a client library spends deserializing and
//!   validating every skill again;
//! - a skill folder created or deleted on disk → `resources/list_changed`
//!   at a connected 2025-11-25 session, against the watcher's coalescing
//!   window (the part of the latency the server adds is what lies beyond);
//! - the server's resident memory per idle session, from `/proc`;
//! - load: [`LOAD_SESSIONS`] plain 2025-11-25 sessions at once, each
//!   sending `skills/list`, `tools/list` and `ping` back to back for the
//!   load's seconds: requests, errors, p50 and p99, and the server's
//!   resident memory and open descriptors before, at peak, and 5 s after
//!   the clients left;
//! - the red-team attacks at their measured sizes (see [`super::attack`]),
//!   each against the 512 MiB bound.
//!
//! The baseline is the same listing in process, with no protocol: the
//! server's own live view (`skillhost_mcp::Live`) over the same tree, every
//! entry `skills/list` sends written as JSON on one thread, so the ratio is
//! what JSON-RPC, HTTP and the client add to handing out the listing.

use super::{generate_tree, ms, percentile};
use anyhow::{Context as _, Result, anyhow, bail};
use rmcp::model::{PaginatedRequestParams, ProtocolVersion};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientCacheConfig, ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// What `bench --serve` measures.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Skills in the generated tree.
    pub skills: usize,
    /// Timed listings.
    pub listings: usize,
    /// Timed changes (at least 50 for a meaningful p99).
    pub changes: usize,
    /// Idle sessions opened for the memory figure.
    pub sessions: usize,
    /// Entries per `skills/list` page.
    pub page_size: usize,
    /// Seconds of the load phase.
    pub load_secs: u64,
}

/// Concurrent sessions of the load phase.
pub const LOAD_SESSIONS: usize = 200;

/// What the load phase saw.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Seconds it ran.
    pub secs: u64,
    /// Requests answered, over all sessions.
    pub requests: u64,
    /// Requests that failed: a transport error, an HTTP error status, or a
    /// JSON-RPC error.
    pub errors: u64,
    /// Each answered request's time, request sent to body read.
    pub latencies: Vec<Duration>,
    /// The server's resident memory (KiB): before, at peak, 5 s after.
    pub rss_kib: [u64; 3],
    /// The server's open descriptors: before, at peak, 5 s after.
    pub descriptors: [u64; 3],
}

/// The figures.
#[derive(Debug, Clone, Default)]
pub struct ServeReport {
    /// Skills served.
    pub skills: usize,
    /// Pages in one whole listing.
    pub pages: usize,
    /// Whole listings over plain HTTP (every page).
    pub list_http: Vec<Duration>,
    /// Bytes of one whole listing over plain HTTP (bodies, every page).
    pub listing_bytes: usize,
    /// Whole listings through rmcp's client (every page).
    pub list_all: Vec<Duration>,
    /// First pages alone.
    pub list_page: Vec<Duration>,
    /// The baseline: the same listing from the live view in process, as JSON.
    pub in_process: Vec<Duration>,
    /// Change on disk → notification.
    pub changes: Vec<Duration>,
    /// The watcher's coalescing window.
    pub window: Duration,
    /// Idle sessions opened.
    pub sessions: usize,
    /// Server memory before them, KiB.
    pub rss_before_kib: u64,
    /// Server memory with them open, KiB.
    pub rss_after_kib: u64,
    /// The load phase.
    pub load: LoadReport,
    /// The red-team attacks, one after another on one server of their own tree.
    pub attacks: Vec<super::attack::Attack>,
}

impl ServeReport {
    /// The whole listing over HTTP against the baseline, at the median.
    pub fn ratio(&self) -> f64 {
        let base = ms(percentile(&self.in_process, 50.0));
        if base > 0.0 {
            ms(percentile(&self.list_http, 50.0)) / base
        } else {
            f64::NAN
        }
    }

    fn per_session_kib(&self) -> f64 {
        self.rss_after_kib.saturating_sub(self.rss_before_kib) as f64 / self.sessions.max(1) as f64
    }

    /// The human-readable report.
    pub fn render(&self) -> String {
        let line = |name: &str, samples: &[Duration]| {
            format!(
                "{name:<34} p50 {:>8.3} ms  p99 {:>8.3} ms  ({} runs)\n",
                ms(percentile(samples, 50.0)),
                ms(percentile(samples, 99.0)),
                samples.len()
            )
        };
        let mut out = format!(
            "skillhost bench --serve: {} skills over Streamable HTTP on loopback (rmcp client)\n",
            self.skills
        );
        out.push_str(&line(
            &format!("skills/list, all {} pages, HTTP", self.pages),
            &self.list_http,
        ));
        out.push_str(&format!(
            "  {} bytes of response bodies per whole listing\n",
            self.listing_bytes
        ));
        out.push_str(&line("baseline: the listing in process", &self.in_process));
        out.push_str(&format!(
            "ratio HTTP/in-process (whole listing, p50): {:.2}\n",
            self.ratio()
        ));
        out.push_str(&line(
            &format!("skills/list, all {} pages, rmcp", self.pages),
            &self.list_all,
        ));
        out.push_str(&line("skills/list, first page, rmcp", &self.list_page));
        let beyond: Vec<Duration> = self
            .changes
            .iter()
            .map(|d| d.saturating_sub(self.window))
            .collect();
        out.push_str(&line("change -> list_changed", &self.changes));
        out.push_str(&line(
            &format!("  beyond the {:.0} ms window", ms(self.window)),
            &beyond,
        ));
        out.push_str(&format!(
            "resident memory per idle session: {:.1} KiB ({} sessions: {} KiB -> {} KiB)\n",
            self.per_session_kib(),
            self.sessions,
            self.rss_before_kib,
            self.rss_after_kib
        ));
        let load = &self.load;
        out.push_str(&format!(
            "load: {LOAD_SESSIONS} sessions for {} s: {} requests, {} errors\n",
            load.secs, load.requests, load.errors
        ));
        out.push_str(&line("  per request under load", &load.latencies));
        out.push_str(&format!(
            "  resident memory {} -> peak {} -> {} KiB 5 s after; descriptors {} -> {} -> {}\n",
            load.rss_kib[0],
            load.rss_kib[1],
            load.rss_kib[2],
            load.descriptors[0],
            load.descriptors[1],
            load.descriptors[2]
        ));
        out.push_str(&format!(
            "attacks (resident memory when it began -> peak -> 5 s after the clients left; bound {} MiB):\n",
            super::attack::BOUND_KIB / 1024
        ));
        for attack in &self.attacks {
            let answers: Vec<String> = attack
                .answers
                .iter()
                .map(|(kind, n)| format!("{n} x {kind}"))
                .collect();
            out.push_str(&format!(
                "  {}: {} -> {} -> {} KiB: {}; answers {}\n",
                attack.name,
                attack.rss_kib[0],
                attack.rss_kib[1],
                attack.rss_kib[2],
                if attack.within() { "within" } else { "OVER" },
                answers.join(", ")
            ));
        }
        out
    }

    /// The figures as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        let pair = |samples: &[Duration]| {
            serde_json::json!({
                "p50_ms": ms(percentile(samples, 50.0)),
                "p99_ms": ms(percentile(samples, 99.0)),
                "runs": samples.len(),
            })
        };
        let beyond: Vec<Duration> = self
            .changes
            .iter()
            .map(|d| d.saturating_sub(self.window))
            .collect();
        serde_json::json!({
            "skills": self.skills,
            "pages": self.pages,
            "skills_list_http": pair(&self.list_http),
            "listing_bytes": self.listing_bytes,
            "skills_list_rmcp": pair(&self.list_all),
            "skills_list_rmcp_first_page": pair(&self.list_page),
            "baseline_in_process": pair(&self.in_process),
            "ratio_http_in_process_p50": self.ratio(),
            "change_to_list_changed": pair(&self.changes),
            "beyond_window": pair(&beyond),
            "window_ms": ms(self.window),
            "idle_sessions": self.sessions,
            "rss_before_kib": self.rss_before_kib,
            "rss_after_kib": self.rss_after_kib,
            "rss_per_session_kib": self.per_session_kib(),
            "load": {
                "sessions": LOAD_SESSIONS,
                "secs": self.load.secs,
                "requests": self.load.requests,
                "errors": self.load.errors,
                "latency": pair(&self.load.latencies),
                "rss_kib": {"before": self.load.rss_kib[0], "peak": self.load.rss_kib[1], "after": self.load.rss_kib[2]},
                "descriptors": {"before": self.load.descriptors[0], "peak": self.load.descriptors[1], "after": self.load.descriptors[2]},
            },
            "attacks": self.attacks.iter().map(|a| serde_json::json!({
                "name": a.name,
                "rss_kib": {"before": a.rss_kib[0], "peak": a.rss_kib[1], "after": a.rss_kib[2]},
                "within_bound": a.within(),
                "answers": a.answers.iter().map(|(k, n)| serde_json::json!({"kind": k, "count": n})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// What a plain client reads of one `skills/list` page.
#[derive(serde::Deserialize)]
struct PlainPage {
    result: PlainResult,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlainResult {
    skills: Vec<serde::de::IgnoredAny>,
    next_cursor: Option<String>,
}

/// One JSON-RPC request on the plain session; the response body whole.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: serde_json::Value,
) -> Result<reqwest::Response> {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    let response = request.send().await?;
    if !response.status().is_success() {
        bail!("bench: the server answered {}", response.status());
    }
    Ok(response)
}

/// The JSON of the one message in an SSE (or plain JSON) response body.
fn message(body: &[u8]) -> Result<&[u8]> {
    if body.first() == Some(&b'{') {
        return Ok(body);
    }
    body.split(|b| *b == b'\n')
        .find_map(|line| {
            line.strip_prefix(b"data: ")
                .filter(|d| d.first() == Some(&b'{'))
        })
        .ok_or_else(|| anyhow!("bench: a response held no JSON-RPC message"))
}

/// A plain 2025-11-25 session: its own HTTP client (one kept-alive
/// connection) and its id, initialized.
async fn plain_session(url: &str) -> Result<(reqwest::Client, String)> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .context("cannot make an HTTP client")?;
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "skillhost-bench", "version": "1"}}});
    let opened = post(&http, url, None, init).await?;
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or_else(|| anyhow!("bench: initialize gave no session id"))?;
    opened.bytes().await?;
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&http, url, Some(&session), initialized)
        .await?
        .bytes()
        .await?;
    Ok((http, session))
}

/// One load session: requests back to back until `until`; its answered
/// requests' times and its error count.
async fn load_session(url: String, until: Instant) -> (Vec<Duration>, u64) {
    let (mut times, mut errors) = (Vec::new(), 0);
    let (http, session) = match plain_session(&url).await {
        Ok(opened) => opened,
        Err(_) => return (times, 1),
    };
    let mut id = 0u64;
    while Instant::now() < until {
        id += 1;
        let method = ["skills/list", "tools/list", "ping"][(id % 3) as usize];
        let request =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}});
        let started = Instant::now();
        let answered = async {
            let body = post(&http, &url, Some(&session), request)
                .await?
                .bytes()
                .await?;
            let reply: serde_json::Value = serde_json::from_slice(message(&body)?)?;
            anyhow::ensure!(reply.get("error").is_none(), "a JSON-RPC error");
            Ok::<_, anyhow::Error>(())
        }
        .await;
        match answered {
            Ok(()) => times.push(started.elapsed()),
            Err(_) => errors += 1,
        }
    }
    (times, errors)
}

/// Open descriptors of process `pid`, from `/proc`.
fn descriptors(pid: u32) -> Result<u64> {
    Ok(std::fs::read_dir(format!("/proc/{pid}/fd"))
        .context("cannot read the server's descriptors (/proc)")?
        .count() as u64)
}

/// The load phase: [`LOAD_SESSIONS`] sessions for `secs`, the server
/// sampled every 250 ms for its peak, and once more 5 s after.
async fn load(url: &str, pid: u32, secs: u64) -> Result<LoadReport> {
    let mut report = LoadReport {
        secs,
        rss_kib: [rss_kib(pid)?; 3],
        descriptors: [descriptors(pid)?; 3],
        ..LoadReport::default()
    };
    let until = Instant::now() + Duration::from_secs(secs);
    let sessions: Vec<_> = (0..LOAD_SESSIONS)
        .map(|_| tokio::spawn(load_session(url.to_string(), until)))
        .collect();
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(250)).await;
        report.rss_kib[1] = report.rss_kib[1].max(rss_kib(pid)?);
        report.descriptors[1] = report.descriptors[1].max(descriptors(pid)?);
    }
    for session in sessions {
        let (times, errors) = session.await.context("a load session panicked")?;
        report.requests += times.len() as u64;
        report.errors += errors;
        report.latencies.extend(times);
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    report.rss_kib[2] = rss_kib(pid)?;
    report.descriptors[2] = descriptors(pid)?;
    Ok(report)
}

/// Whole listings on a plain 2025-11-25 session over one kept-alive connection.
async fn plain_listings(url: &str, options: &ServeOptions, report: &mut ServeReport) -> Result<()> {
    let (http, session) = plain_session(url).await?;
    for round in 0..options.listings + 3 {
        let started = Instant::now();
        let mut cursor: Option<String> = None;
        let (mut count, mut bytes) = (0, 0);
        loop {
            let params = match &cursor {
                Some(c) => serde_json::json!({ "cursor": c }),
                None => serde_json::json!({}),
            };
            let request = serde_json::json!({"jsonrpc": "2.0", "id": round + 1,
                "method": "skills/list", "params": params});
            let body = post(&http, url, Some(&session), request)
                .await?
                .bytes()
                .await?;
            bytes += body.len();
            let page: PlainPage = serde_json::from_slice(message(&body)?)
                .context("bench: a skills/list page did not parse")?;
            count += page.result.skills.len();
            cursor = page.result.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        let elapsed = started.elapsed();
        if count != options.skills {
            bail!(
                "bench: skills/list over HTTP gave {count} skills, expected {}",
                options.skills
            );
        }
        if round >= 3 {
            report.list_http.push(elapsed);
        }
        report.listing_bytes = bytes;
    }
    Ok(())
}

/// Hears `resources/list_changed`.
#[derive(Clone)]
struct Listener(mpsc::UnboundedSender<Instant>);

impl ClientHandler for Listener {
    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(Instant::now());
    }
}

/// The child `skillhost serve`; killed when dropped.
pub(crate) struct Served {
    child: Child,
    /// Its MCP endpoint.
    pub(crate) url: String,
}

impl Served {
    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(root: &Path, page_size: usize, window: Duration) -> Result<Served> {
    serve_with(root, page_size, window, &[])
}

/// `skillhost serve --http` on loopback over `root`, with `extra` arguments.
pub(crate) fn serve_with(
    root: &Path,
    page_size: usize,
    window: Duration,
    extra: &[&str],
) -> Result<Served> {
    let exe = std::env::current_exe().context("cannot find this program")?;
    let mut child = Command::new(exe)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--no-bundled",
            "--page-size",
        ])
        .arg(page_size.to_string())
        .arg("--window")
        .arg(window.as_millis().to_string())
        .arg("--root")
        .arg(root)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start skillhost serve")?;
    let stderr = child.stderr.take().context("no standard error")?;
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .ok_or_else(|| anyhow!("skillhost serve exited before listening"))??;
        if let Some(url) = line.strip_prefix("skillhost: MCP listening on ") {
            break url.to_string();
        }
    };
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Ok(Served { child, url })
}

/// The resident memory of process `pid` (KiB), from `/proc`.
pub(crate) fn rss_kib(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .context("cannot read the server's memory (/proc)")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("no VmRSS in /proc/{pid}/status"))
}

async fn connect<H: ClientHandler>(
    handler: H,
    url: &str,
    mode: ClientLifecycleMode,
) -> Result<RunningService<RoleClient, H>> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    let client = handler
        .serve_with_lifecycle(transport, mode)
        .await
        .map_err(|e| anyhow!("cannot connect to {url}: {e}"))?;
    client
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    Ok(client)
}

/// Writes a skill folder beside the root and moves it in whole.
fn create(root: &Path, name: &str) -> Result<()> {
    let staging = root.with_file_name(format!(".staging-{name}"));
    std::fs::create_dir_all(&staging)?;
    let text = format!("---\nname: {name}\ndescription: Made by the benchmark\n---\nBody.\n");
    super::write(&staging.join("SKILL.md"), &text)?;
    std::fs::rename(&staging, root.join(name))?;
    Ok(())
}

/// Runs the benchmark.
pub fn run(runtime: &skillhost::Runtime, options: ServeOptions) -> Result<ServeReport> {
    let tree = tempfile::tempdir().context("cannot make a temporary folder")?;
    let root = tree.path().join("skills");
    generate_tree(&root, options.skills)?;
    let window = skillhost::registry::watch::WatchOptions::default().window;
    let in_process = baseline(runtime, &root, options.listings, options.skills)?;
    let served = serve(&root, options.page_size, window)?;
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut report = tokio.block_on(measure(&served, &root, options))?;
    drop(served);
    drop(tokio);
    report.attacks = super::attack::run(window)?;
    report.window = window;
    report.in_process = in_process;
    Ok(report)
}

/// The baseline: the listing of the same tree from the server's live view
/// in process, every entry written as the JSON `skills/list` carries.
fn baseline(
    runtime: &skillhost::Runtime,
    root: &Path,
    rounds: usize,
    skills: usize,
) -> Result<Vec<Duration>> {
    let registry = skillhost::Registry::new();
    registry.add(runtime.local_provider(root)?)?;
    let live = skillhost_mcp::Live::start(Arc::new(registry), skillhost_mcp::Options::default())?;
    let mut samples = Vec::with_capacity(rounds);
    for round in 0..rounds + 3 {
        let started = Instant::now();
        let view = live.view();
        let wire: Vec<_> = view.entries.iter().map(|e| &e.wire).collect();
        let text = serde_json::to_string(&wire)?;
        let elapsed = started.elapsed();
        if wire.len() != skills || text.is_empty() {
            bail!(
                "bench: the in-process listing has {} skills, expected {skills}",
                wire.len()
            );
        }
        if round >= 3 {
            samples.push(elapsed);
        }
    }
    drop(live);
    Ok(samples)
}

async fn measure(served: &Served, root: &Path, options: ServeOptions) -> Result<ServeReport> {
    let mut report = ServeReport {
        skills: options.skills,
        window: skillhost::registry::watch::WatchOptions::default().window,
        sessions: options.sessions,
        ..ServeReport::default()
    };
    plain_listings(&served.url, &options, &mut report).await?;
    let modern = connect(
        (),
        &served.url,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await?;
    for round in 0..options.listings + 3 {
        let started = Instant::now();
        let mut cursor = None;
        let mut pages = 0;
        let mut count = 0;
        loop {
            let page = modern
                .list_skills(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                .await?;
            pages += 1;
            count += page.skills.len();
            if pages == 1 && round >= 3 {
                report.list_page.push(started.elapsed());
            }
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        if count != options.skills {
            bail!(
                "bench: skills/list gave {count} skills, expected {}",
                options.skills
            );
        }
        // The first rounds warm the connection and the caches up.
        if round >= 3 {
            report.list_all.push(started.elapsed());
        }
        report.pages = pages;
    }
    modern.cancel().await?;

    let (tx, mut heard) = mpsc::unbounded_channel();
    let session = connect(Listener(tx), &served.url, ClientLifecycleMode::Initialize).await?;
    session.list_all_tools().await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    for i in 0..options.changes {
        let name = format!("bench-change-{i:03}");
        // Quiet first: nothing left over from the last change.
        tokio::time::sleep(Duration::from_millis(60)).await;
        while heard.try_recv().is_ok() {}
        let started = Instant::now();
        if i % 2 == 0 {
            create(root, &name)?;
        } else {
            let previous = format!("bench-change-{:03}", i - 1);
            std::fs::remove_dir_all(root.join(previous))?;
        }
        let at = tokio::time::timeout(Duration::from_secs(10), heard.recv())
            .await
            .map_err(|_| anyhow!("bench: no list_changed within 10 s of change {i}"))?
            .ok_or_else(|| anyhow!("bench: the session closed"))?;
        report.changes.push(at.duration_since(started));
    }
    session.cancel().await?;

    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = served.child.id();
    report.rss_before_kib = rss_kib(pid)?;
    let mut idle = Vec::with_capacity(options.sessions);
    for _ in 0..options.sessions {
        let (tx, _keep) = mpsc::unbounded_channel();
        let client = connect(Listener(tx), &served.url, ClientLifecycleMode::Initialize).await?;
        idle.push((client, _keep));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    report.rss_after_kib = rss_kib(pid)?;
    for (client, _) in idle {
        client.cancel().await?;
    }
    report.load = load(&served.url, pid, options.load_secs).await?;
    Ok(report)
}
