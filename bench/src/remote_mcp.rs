//! `skillhost-bench remote-mcp`: the remote provider over MCP listing
//! SKILLS skills from `skillhost serve --http` on loopback, cold (a new
//! provider instance: initialize, every page of skills/list, every entry
//! checked) and on an unchanged poll (the whole listing again, nothing
//! invalidated). Bytes are counted both ways by a proxy between the two.

use super::child::serve_with;
use super::{generate_tree, ms, percentile};
use anyhow::{Context as _, Result, bail};
use skillhost::{Registry, RemoteSource};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The figures.
pub struct RemoteMcpReport {
    /// Skills listed.
    pub skills: usize,
    /// Entries per page.
    pub page_size: usize,
    /// Cold listings: p50 and p95.
    pub cold: (Duration, Duration),
    /// Bytes a cold listing moved (both ways).
    pub cold_bytes: u64,
    /// Unchanged polls: p50 and p95.
    pub poll: (Duration, Duration),
    /// Bytes an unchanged poll moved (both ways).
    pub poll_bytes: u64,
    /// Rounds of each.
    pub rounds: usize,
}

impl RemoteMcpReport {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "skills": self.skills,
            "page_size": self.page_size,
            "rounds": self.rounds,
            "cold_ms": {"p50": ms(self.cold.0), "p95": ms(self.cold.1)},
            "cold_bytes": self.cold_bytes,
            "unchanged_poll_ms": {"p50": ms(self.poll.0), "p95": ms(self.poll.1)},
            "unchanged_poll_bytes": self.poll_bytes,
        })
    }

    /// As text.
    pub fn render(&self) -> String {
        format!(
            "remote over MCP, {} skills from skillhost serve ({} a page), {} rounds\n\
             cold listing:     p50 {:.1} ms, p95 {:.1} ms, {} bytes\n\
             unchanged poll:   p50 {:.1} ms, p95 {:.1} ms, {} bytes (nothing invalidated)\n",
            self.skills,
            self.page_size,
            self.rounds,
            ms(self.cold.0),
            ms(self.cold.1),
            self.cold_bytes,
            ms(self.poll.0),
            ms(self.poll.1),
            self.poll_bytes,
        )
    }
}

/// A loopback proxy to `upstream` counting every byte it forwards.
struct Proxy {
    port: u16,
    bytes: Arc<AtomicU64>,
}

fn pipe(mut from: TcpStream, mut to: TcpStream, bytes: Arc<AtomicU64>) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                bytes.fetch_add(n as u64, Ordering::Relaxed);
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

impl Proxy {
    fn start(upstream: String) -> Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").context("cannot bind the proxy")?;
        let port = listener.local_addr()?.port();
        let bytes = Arc::new(AtomicU64::new(0));
        let counted = bytes.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                    continue;
                };
                let (a, b) = (counted.clone(), counted.clone());
                std::thread::spawn(move || pipe(client, server, a));
                std::thread::spawn(move || pipe(s2, c2, b));
            }
        });
        Ok(Proxy { port, bytes })
    }

    fn taken(&self) -> u64 {
        self.bytes.swap(0, Ordering::Relaxed)
    }
}

/// Runs the benchmark.
pub fn run(
    runtime: &skillhost::Runtime,
    skills: usize,
    rounds: usize,
    page_size: usize,
) -> Result<RemoteMcpReport> {
    let tree = tempfile::tempdir().context("cannot make a temporary folder")?;
    let root = tree.path().join("skills");
    generate_tree(&root, skills)?;
    let served = serve_with(
        &root,
        page_size.clamp(1, 1000),
        Duration::from_millis(10),
        &["--ttl-ms", "0"],
    )?;
    let authority = served
        .url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .context("the server's URL has no authority")?
        .to_string();
    let proxy = Proxy::start(authority)?;
    let source = RemoteSource::from_arg(&format!("bench=mcp+http://127.0.0.1:{}/mcp", proxy.port))?;
    drop(runtime.remote_component()?);
    let listed = |registry: &Registry| registry.snapshot();
    // The server lists what its first scan found once that scan is done.
    let started = Instant::now();
    loop {
        let registry = Registry::new();
        registry.add(runtime.remote_provider(&source)?)?;
        let catalog = listed(&registry);
        if catalog.complete && catalog.skills.len() == skills {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            bail!(
                "the remote listing never reached {skills} skills: {:?}",
                catalog.diagnostics
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut cold = Vec::new();
    let mut cold_bytes = 0;
    for _ in 0..rounds {
        let registry = Registry::new();
        registry.add(runtime.remote_provider(&source)?)?;
        proxy.taken();
        let started = Instant::now();
        let catalog = listed(&registry);
        cold.push(started.elapsed());
        cold_bytes = proxy.taken();
        if catalog.skills.len() != skills {
            bail!("a cold listing gave {} skills", catalog.skills.len());
        }
    }
    let provider = runtime.remote_provider(&source)?;
    let registry = Registry::new();
    registry.add(provider.clone())?;
    listed(&registry);
    let generation = provider.signals().generation();
    let mut poll = Vec::new();
    let mut poll_bytes = 0;
    for _ in 0..rounds {
        proxy.taken();
        let started = Instant::now();
        provider.poll()?;
        poll.push(started.elapsed());
        poll_bytes = proxy.taken();
    }
    if provider.signals().generation() != generation {
        bail!("an unchanged poll invalidated the provider");
    }
    Ok(RemoteMcpReport {
        skills,
        page_size,
        cold: (percentile(&cold, 50.0), percentile(&cold, 95.0)),
        cold_bytes,
        poll: (percentile(&poll, 50.0), percentile(&poll, 95.0)),
        poll_bytes,
        rounds,
    })
}
