//! The product as a child process: `skillhost serve --http` on loopback,
//! and what `/proc` says of a process's memory and descriptors.

use anyhow::{Context as _, Result, anyhow};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The child `skillhost serve`; killed when dropped.
pub struct Served {
    child: Child,
    /// Its MCP endpoint.
    pub url: String,
}

impl Served {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `skillhost serve --http` on loopback over `root`, with `extra` arguments.
pub fn serve_with(
    root: &Path,
    page_size: usize,
    window: Duration,
    extra: &[&str],
) -> Result<Served> {
    let exe = super::product()?;
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
pub fn rss_kib(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .context("cannot read the server's memory (/proc)")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("no VmRSS in /proc/{pid}/status"))
}

/// Open descriptors of process `pid`, from `/proc`.
pub fn descriptors(pid: u32) -> Result<u64> {
    Ok(std::fs::read_dir(format!("/proc/{pid}/fd"))
        .context("cannot read the server's descriptors (/proc)")?
        .count() as u64)
}
