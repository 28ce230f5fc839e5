//! What the `serve` bench is asked and what it found, as text and JSON.

use crate::{ms, percentile};
use std::time::Duration;

/// What `skillhost-bench serve` measures.
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
    /// Whether the red-team attacks run after the measures.
    pub attacks: bool,
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
    /// The same listings from a server started with `--rmcp-listing`: rmcp
    /// answers every page, without the cached pages served in front of it.
    pub list_http_rmcp_only: Vec<Duration>,
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
    pub attacks: Vec<crate::attack::Attack>,
}

/// The median of `over` against the median of `base` (NaN without a base).
fn median_ratio(over: &[Duration], base: &[Duration]) -> f64 {
    let base = ms(percentile(base, 50.0));
    if base > 0.0 {
        ms(percentile(over, 50.0)) / base
    } else {
        f64::NAN
    }
}

impl ServeReport {
    /// The whole listing over HTTP against the baseline, at the median.
    pub fn ratio(&self) -> f64 {
        median_ratio(&self.list_http, &self.in_process)
    }

    /// What the `skills/list` fast path buys: the whole listing with rmcp
    /// alone against with the fast path, at the median (same server, same
    /// tree, same client, one after the other).
    pub fn fast_path_ratio(&self) -> f64 {
        median_ratio(&self.list_http_rmcp_only, &self.list_http)
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
            "skillhost-bench serve: {} skills over Streamable HTTP on loopback (rmcp client)\n",
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
            "  the same, server with --rmcp-listing",
            &self.list_http_rmcp_only,
        ));
        out.push_str(&format!(
            "ratio rmcp-only/fast path (whole listing, p50): {:.2}\n",
            self.fast_path_ratio()
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
            crate::attack::BOUND_KIB / 1024
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
            "skills_list_http_rmcp_only": pair(&self.list_http_rmcp_only),
            "ratio_rmcp_only_fast_path_p50": self.fast_path_ratio(),
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
