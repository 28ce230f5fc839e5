//! `skillhost-bench serve`: the MCP server as its clients see it. A real
//! `skillhost serve --http` (the product binary, as a child process) over a
//! generated tree, and rmcp's own client on loopback:
//!
//! - `skills/list` of the whole catalog, every page, over plain HTTP on a
//!   2025-11-25 session: the request sent until the last byte of the last
//!   page is in, each page parsed only for its cursor and its count. This is
//!   the server's figure; the target (p50 ≤ 5 ms for 1,000 skills) is about it;
//! - the same from a server started with `--rmcp-listing` (rmcp answers
//!   every page): what the fast path in `mcp/src/listing.rs` buys;
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
//! - the red-team attacks at their measured sizes (see [`crate::attack`]),
//!   each against the 512 MiB bound.
//!
//! The baseline is the same listing in process, with no protocol: the
//! server's own live view (`skillhost_mcp::Live`) over the same tree, every
//! entry `skills/list` sends written as JSON on one thread, so the ratio is
//! what JSON-RPC, HTTP and the client add to handing out the listing.

mod report;

pub use report::{LOAD_SESSIONS, LoadReport, ServeOptions, ServeReport};

use crate::child::{Served, descriptors, rss_kib, serve_with};
use crate::generate_tree;
use anyhow::{Context as _, Result, anyhow, bail};
use rmcp::model::{PaginatedRequestParams, ProtocolVersion};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientCacheConfig, ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

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

fn serve(root: &Path, page_size: usize, window: Duration) -> Result<Served> {
    serve_with(root, page_size, window, &[])
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
    crate::write(&staging.join("SKILL.md"), &text)?;
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
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The listings with the fast path switched off first, on a server of
    // their own, while the tree is as generated.
    let rmcp_only = serve_with(&root, options.page_size, window, &["--rmcp-listing"])?;
    let mut alone = ServeReport::default();
    tokio.block_on(plain_listings(&rmcp_only.url, &options, &mut alone))?;
    drop(rmcp_only);
    let served = serve(&root, options.page_size, window)?;
    let attacks = options.attacks;
    let mut report = tokio.block_on(measure(&served, &root, options))?;
    report.list_http_rmcp_only = alone.list_http;
    drop(served);
    drop(tokio);
    if attacks {
        report.attacks = crate::attack::run(window)?;
    }
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
    let pid = served.pid();
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
