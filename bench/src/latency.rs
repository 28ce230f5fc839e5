//! How fast a file change reaches the catalog, with a real watcher on a
//! real folder: create a skill, change its description, rename its folder
//! (the name follows the folder), delete it; then body-only edits, which
//! must change nothing.

use super::{check, generate_tree, ms, percentile, write};
use anyhow::{Context as _, Result};
use skillhost::registry::watch::{WatchMode, WatchOptions};
use skillhost::{Catalog, Registry, Runtime};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What `skillhost-bench latency` measures.
#[derive(Debug, Clone)]
pub struct LatencyOptions {
    /// Repetitions of each operation (at least 50 for a meaningful p99).
    pub reps: usize,
    /// Native events or polling.
    pub mode: WatchMode,
    /// The coalescing window used.
    pub window: Duration,
    /// Skills already in the root (the provider watches them all).
    pub background: usize,
}

impl Default for LatencyOptions {
    fn default() -> Self {
        LatencyOptions {
            reps: 50,
            mode: WatchMode::Native,
            window: WatchOptions::default().window,
            background: 100,
        }
    }
}

/// Change-to-catalog latencies, per operation.
#[derive(Debug, Clone, Default)]
pub struct LatencyReport {
    /// The coalescing window the watcher used.
    pub window: Duration,
    /// Whether polling was used.
    pub polling: bool,
    /// (operation, samples).
    pub operations: Vec<(&'static str, Vec<Duration>)>,
    /// Body-only edits made.
    pub body_edits: usize,
    /// Catalog changes they caused (should be zero).
    pub body_edit_changes: usize,
}

impl LatencyReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let mut out = format!(
            "skillhost-bench latency: {} repetitions per operation, {}, coalescing window {:.0} ms\n",
            self.operations.first().map_or(0, |(_, s)| s.len()),
            if self.polling {
                "polling"
            } else {
                "native events"
            },
            ms(self.window),
        );
        for (name, samples) in &self.operations {
            let (p50, p99) = (percentile(samples, 50.0), percentile(samples, 99.0));
            out.push_str(&format!(
                "{name:<12} p50 {:>7.2} ms  p99 {:>7.2} ms   beyond the window: p50 {:>6.2} ms  p99 {:>6.2} ms\n",
                ms(p50),
                ms(p99),
                ms(p50.saturating_sub(self.window)),
                ms(p99.saturating_sub(self.window)),
            ));
        }
        out.push_str(&format!(
            "body-only edits: {}, catalog changes they caused: {}\n",
            self.body_edits, self.body_edit_changes
        ));
        out
    }

    /// The JSON of `skillhost-bench latency --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        let operations: serde_json::Map<String, serde_json::Value> = self
            .operations
            .iter()
            .map(|(name, samples)| {
                (
                    name.to_string(),
                    serde_json::json!({
                        "p50_ms": ms(percentile(samples, 50.0)),
                        "p99_ms": ms(percentile(samples, 99.0)),
                        "samples": samples.len(),
                    }),
                )
            })
            .collect();
        serde_json::json!({
            "window_ms": ms(self.window),
            "polling": self.polling,
            "operations": operations,
            "body_edits": self.body_edits,
            "body_edit_changes": self.body_edit_changes,
        })
    }
}

/// A watched registry over a generated root, and its change notifications.
struct Site {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    registry: Registry,
    changes: mpsc::Receiver<()>,
    _subscription: skillhost::registry::Subscription,
}

/// How long one operation may take to reach the catalog before the bench
/// gives up on it.
const TIMEOUT: Duration = Duration::from_secs(10);

impl Site {
    fn new(runtime: &Runtime, options: &LatencyOptions) -> Result<Site> {
        let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
        let root = dir.path().join("skills");
        generate_tree(&root, options.background)?;
        let root = std::fs::canonicalize(&root).context("cannot resolve the generated tree")?;
        let registry = Registry::new();
        registry.add(runtime.local_provider(&root)?)?;
        registry.watch(WatchOptions {
            mode: options.mode,
            window: options.window,
            ..Default::default()
        })?;
        let (tx, changes) = mpsc::channel();
        let subscription = registry.subscribe(move |change| {
            // Only what can change the catalog; file deliveries are not.
            if matches!(change, skillhost::registry::Change::Catalog { .. }) {
                let _ = tx.send(());
            }
        });
        check(
            registry.snapshot().skills.len(),
            options.background,
            "initial snapshot",
        )?;
        Ok(Site {
            _dir: dir,
            root,
            registry,
            changes,
            _subscription: subscription,
        })
    }

    /// Does `change`, then waits for the catalog to satisfy `done`;
    /// returns how long that took from the end of the change.
    fn time(
        &self,
        what: &str,
        change: impl FnOnce() -> Result<()>,
        done: impl Fn(&Catalog) -> bool,
    ) -> Result<Duration> {
        change()?;
        let started = Instant::now();
        loop {
            if done(&self.registry.snapshot()) {
                return Ok(started.elapsed());
            }
            let left = TIMEOUT.saturating_sub(started.elapsed());
            anyhow::ensure!(!left.is_zero(), "bench: {what} never reached the catalog");
            let _ = self.changes.recv_timeout(left);
        }
    }
}

fn skill_md(description: &str, text: &str) -> String {
    format!("---\ndescription: {description}\n---\n{text}\n")
}

/// One round of the four operations on a fresh skill.
fn round(site: &Site, i: usize, samples: &mut [Vec<Duration>; 4]) -> Result<()> {
    let name = format!("probe-{i}");
    let folder = site.root.join(&name);
    samples[0].push(site.time(
        "a created skill",
        || {
            std::fs::create_dir(&folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
            write(&folder.join("SKILL.md"), &skill_md("fresh", "body"))
        },
        |c| c.get(&name).is_some(),
    )?);
    samples[1].push(site.time(
        "a description change",
        || write(&folder.join("SKILL.md"), &skill_md("reworded", "body")),
        |c| c.get(&name).and_then(|s| s.description()) == Some("reworded"),
    )?);
    let renamed = format!("renamed-{i}");
    let target = site.root.join(&renamed);
    samples[2].push(site.time(
        "a renamed skill",
        || {
            std::fs::rename(&folder, &target)
                .with_context(|| format!("cannot rename {}", folder.display()))
        },
        |c| c.get(&renamed).is_some() && c.get(&name).is_none(),
    )?);
    samples[3].push(site.time(
        "a deleted skill",
        || {
            std::fs::remove_dir_all(&target)
                .with_context(|| format!("cannot remove {}", target.display()))
        },
        |c| c.get(&renamed).is_none(),
    )?);
    Ok(())
}

/// Body-only edits: each must leave the catalog exactly as it was. Returns
/// how many changed it.
fn body_edits(site: &Site, reps: usize, window: Duration) -> Result<usize> {
    let edited = site.root.join("skill-00000").join("SKILL.md");
    let mut changes = 0;
    let mut last = site.registry.snapshot();
    for i in 0..reps {
        let text = std::fs::read_to_string(&edited)
            .with_context(|| format!("cannot read {}", edited.display()))?;
        let frontmatter_end = text.find("\n---\n").map_or(text.len(), |at| at + 5);
        write(
            &edited,
            &format!(
                "{}# Skill 0, edit {i}\n\nNew body.\n",
                &text[..frontmatter_end]
            ),
        )?;
        std::thread::sleep(window * 3 + Duration::from_millis(20));
        while site.changes.try_recv().is_ok() {}
        let now = site.registry.snapshot();
        if now.skills != last.skills || now.diagnostics != last.diagnostics {
            changes += 1;
        }
        last = now;
    }
    Ok(changes)
}

/// Measures how long each file operation takes to reach the catalog, then
/// counts the catalog changes body-only edits cause.
pub fn run(runtime: &Runtime, options: LatencyOptions) -> Result<LatencyReport> {
    let site = Site::new(runtime, &options)?;
    let mut samples: [Vec<Duration>; 4] = Default::default();
    for i in 0..options.reps {
        round(&site, i, &mut samples)?;
    }
    let body_edit_changes = body_edits(&site, options.reps, options.window)?;
    let [create, describe, rename, delete] = samples;
    Ok(LatencyReport {
        window: options.window,
        polling: matches!(options.mode, WatchMode::Poll(_)),
        operations: vec![
            ("create", create),
            ("description", describe),
            ("rename", rename),
            ("delete", delete),
        ],
        body_edits: options.reps,
        body_edit_changes,
    })
}
