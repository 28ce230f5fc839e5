//! `skillhost bench`: figures measured in one run, each against a stated
//! baseline.
//!
//! - [`scan`]: the sandboxed local provider against a native scan that
//!   reads through the host's own `files` calls in the provider's batches,
//!   follows the same discovery rules (`skillhost-skill`'s layout) and uses
//!   the same parser, cold, warm and on a blind rescan;
//! - [`catalog_json`]: `skillhost catalog --json` against the text catalog,
//!   whole process;
//! - [`latency`]: a file change on disk to the new catalog, with the real
//!   watcher;
//! - [`catalog`]: the injector's per-step costs (render plus digest, and
//!   the session log's backward scan);
//! - [`usage`]: pattern detection, scoring and ranking, recording one
//!   invocation.
//! - [`serve`]: the MCP server as its clients see it (listing, change to
//!   notification, memory per session).
//! - [`component`]: a big provider component's first start, cached start,
//!   restart after a fault and memory per idle instance.

pub mod attack;
pub mod catalog;
pub mod catalog_json;
pub mod component;
pub mod latency;
pub mod remote_mcp;
pub mod scan;
pub mod serve;
pub mod usage;

pub use latency::LatencyOptions;
pub use scan::BenchOptions;

use anyhow::{Context as _, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// The median of `samples` (zero when empty).
pub fn median(samples: &[Duration]) -> Duration {
    percentile(samples, 50.0)
}

/// The `p`-th percentile (0–100) of `samples`.
pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Milliseconds, for reports.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `a / b`.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        return f64::INFINITY;
    }
    a.as_secs_f64() / b.as_secs_f64()
}

/// Runs `f` and says how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

/// Writes `text` to `path`.
pub fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// A generated skill document: realistic frontmatter and a body of a few
/// kilobytes; `variant` changes its description.
pub fn document(i: usize, variant: &str) -> String {
    let body = "Follow the steps below, checking each result before moving on. \
                Prefer small, verifiable changes and explain trade-offs briefly.\n"
        .repeat(20);
    format!(
        "---\nname: skill-{i:05}\ndescription: Use when working on generated task {i} ({variant}) - \
         exercises the catalog with a realistic one-sentence description.\n\
         when_to_use: When the user mentions task {i}\nallowed-tools: Read, Grep, Bash(git:*)\n\
         metadata:\n  author: bench\n  version: \"1.0\"\n---\n# Skill {i}\n\n{body}"
    )
}

/// Writes `count` generated bundle skills into `root`; one in ten has a
/// reference file.
pub fn generate_tree(root: &Path, count: usize) -> Result<()> {
    for i in 0..count {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        write(&dir.join("SKILL.md"), &document(i, "first"))?;
        if i % 10 == 0 {
            let refs = dir.join("references");
            std::fs::create_dir_all(&refs)
                .with_context(|| format!("cannot create {}", refs.display()))?;
            write(&refs.join("notes.md"), "# Notes\n\nSupporting material.\n")?;
        }
    }
    Ok(())
}

/// Fails the benchmark when a measured operation saw the wrong result
/// (its timing would be meaningless).
pub fn check(found: usize, expected: usize, what: &str) -> Result<()> {
    anyhow::ensure!(
        found == expected,
        "bench: {what} found {found} skills, expected {expected}"
    );
    Ok(())
}
