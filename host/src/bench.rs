//! `skillhost bench`: the sandboxed local provider against a native scan
//! with the same parser, measured in one run, interleaved.
//!
//! - cold: a fresh provider instance's first snapshot (instantiation, `init`,
//!   scan, parse, crossing the boundary, validation, merge) against a native
//!   scan of the same tree;
//! - warm: one file of the N changed; the provider is told (the event the
//!   host watcher delivers: it re-reads that file, sees the description
//!   changed and invalidates itself) and the registry takes its next
//!   snapshot, which carries only the change. Timed from the event to the
//!   new catalog, against the same native full scan;
//! - rescan: the provider invalidated from outside, without saying what
//!   changed: it stats every document and re-reads the changed one.

use crate::Runtime;
use crate::error::Error;
use crate::model::Catalog;
use crate::provider::ChangeKind;
use crate::registry::Registry;
use skillhost_guest_sdk::frontmatter::{
    Frontmatter, MAX_DOCUMENT_BYTES, parse_document, starts_with_frontmatter,
};
use std::path::Path;
use std::time::{Duration, Instant};

/// What to measure.
#[derive(Debug, Clone, Copy)]
pub struct BenchOptions {
    /// Skills in the generated tree.
    pub skills: usize,
    /// Timed rounds (each runs all four measurements).
    pub rounds: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            skills: 1000,
            rounds: 21,
        }
    }
}

/// Every timing of one run.
#[derive(Debug, Clone, Default)]
pub struct BenchReport {
    /// Skills in the tree.
    pub skills: usize,
    /// Rounds timed.
    pub rounds: usize,
    /// Fresh provider, first snapshot.
    pub cold_sandboxed: Vec<Duration>,
    /// Native scan, same parser.
    pub cold_native: Vec<Duration>,
    /// Snapshot after one changed file and an invalidation.
    pub warm_sandboxed: Vec<Duration>,
    /// Native full scan at the same moment.
    pub warm_native: Vec<Duration>,
    /// Snapshot after a blind invalidation (every document stat'ed).
    pub rescan_sandboxed: Vec<Duration>,
}

/// The median of `samples` (zero when empty).
pub fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl BenchReport {
    /// Median sandboxed / median native, cold.
    pub fn cold_ratio(&self) -> f64 {
        ratio(median(&self.cold_sandboxed), median(&self.cold_native))
    }

    /// Median sandboxed / median native, warm.
    pub fn warm_ratio(&self) -> f64 {
        ratio(median(&self.warm_sandboxed), median(&self.warm_native))
    }

    /// Median sandboxed rescan / median native scan.
    pub fn rescan_ratio(&self) -> f64 {
        ratio(median(&self.rescan_sandboxed), median(&self.warm_native))
    }

    /// The human-readable report; the ratio line comes last.
    pub fn render(&self) -> String {
        format!(
            "skillhost bench: {} skills, {} rounds interleaved, medians\n\
             cold    sandboxed {:>9.3} ms   native {:>9.3} ms   (fresh instance: init, scan, parse, boundary)\n\
             warm    sandboxed {:>9.3} ms   native {:>9.3} ms   (one file changed: event, re-read, delta snapshot)\n\
             rescan  sandboxed {:>9.3} ms                      (blind invalidation: every document stat'ed; ratio {:.2})\n\
             ratio sandboxed/native: cold {:.2} warm {:.2}\n",
            self.skills,
            self.rounds,
            ms(median(&self.cold_sandboxed)),
            ms(median(&self.cold_native)),
            ms(median(&self.warm_sandboxed)),
            ms(median(&self.warm_native)),
            ms(median(&self.rescan_sandboxed)),
            self.rescan_ratio(),
            self.cold_ratio(),
            self.warm_ratio(),
        )
    }

    /// The JSON of `skillhost bench --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "skills": self.skills,
            "rounds": self.rounds,
            "cold": {"sandboxed_ms": ms(median(&self.cold_sandboxed)), "native_ms": ms(median(&self.cold_native)), "ratio": self.cold_ratio()},
            "warm": {"sandboxed_ms": ms(median(&self.warm_sandboxed)), "native_ms": ms(median(&self.warm_native)), "ratio": self.warm_ratio()},
            "rescan": {"sandboxed_ms": ms(median(&self.rescan_sandboxed)), "ratio": self.rescan_ratio()},
        })
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        return f64::INFINITY;
    }
    a.as_secs_f64() / b.as_secs_f64()
}

/// Writes `count` generated bundle skills into `root`.
pub fn generate_tree(root: &Path, count: usize) -> Result<(), Error> {
    for i in 0..count {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
            path: dir.clone(),
            source,
        })?;
        write(&dir.join("SKILL.md"), &document(i, "first"))?;
        if i % 10 == 0 {
            let refs = dir.join("references");
            std::fs::create_dir_all(&refs).map_err(|source| Error::Io {
                path: refs.clone(),
                source,
            })?;
            write(&refs.join("notes.md"), "# Notes\n\nSupporting material.\n")?;
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn document(i: usize, variant: &str) -> String {
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

/// A native scan mirroring the local provider: list the root, stat and read
/// each document, parse it with the same parser.
pub fn native_scan(root: &Path) -> Vec<Frontmatter> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let (doc, default_name, flat) = if kind.is_dir() {
            (entry.path().join("SKILL.md"), name.clone(), false)
        } else if let Some(stem) = name.strip_suffix(".md") {
            (entry.path(), stem.to_string(), true)
        } else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&doc) else {
            continue;
        };
        if meta.len() > MAX_DOCUMENT_BYTES {
            continue;
        }
        let Ok(bytes) = std::fs::read(&doc) else {
            continue;
        };
        if flat && !starts_with_frontmatter(&bytes) {
            continue;
        }
        if let Ok(parsed) = parse_document(&bytes, &default_name) {
            out.push(parsed.frontmatter);
        }
    }
    out
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

/// Runs the benchmark on a fresh temporary tree.
pub fn run(runtime: &Runtime, options: BenchOptions) -> Result<BenchReport, Error> {
    let dir = tempfile::tempdir().map_err(|source| Error::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let root = dir.path().join("skills");
    generate_tree(&root, options.skills)?;
    let root = std::fs::canonicalize(&root).map_err(|source| Error::Io {
        path: root.clone(),
        source,
    })?;
    // Compile (or load from the cache) once, outside the timings.
    runtime.local_component()?;

    let warm_registry = Registry::new();
    let warm_provider = runtime.local_provider(&root)?;
    warm_registry.add(warm_provider.clone());
    check(
        warm_registry.snapshot().skills.len(),
        options.skills,
        "warm-up snapshot",
    )?;
    check(
        native_scan(&root).len(),
        options.skills,
        "warm-up native scan",
    )?;

    let mut report = BenchReport {
        skills: options.skills,
        rounds: options.rounds,
        ..Default::default()
    };
    let changing = options.skills / 2;
    for round in 0..options.rounds {
        let cold_sandboxed = || -> Result<Duration, Error> {
            let (elapsed, found) = timed(|| -> Result<usize, Error> {
                let registry = Registry::new();
                registry.add(runtime.local_provider(&root)?);
                Ok(registry.snapshot().skills.len())
            });
            check(found?, options.skills, "cold snapshot")?;
            Ok(elapsed)
        };
        let native = || -> Result<Duration, Error> {
            let (elapsed, found) = timed(|| native_scan(&root).len());
            check(found, options.skills, "native scan")?;
            Ok(elapsed)
        };
        if round % 2 == 0 {
            report.cold_sandboxed.push(cold_sandboxed()?);
            report.cold_native.push(native()?);
        } else {
            report.cold_native.push(native()?);
            report.cold_sandboxed.push(cold_sandboxed()?);
        }

        let doc = root.join(format!("skill-{changing:05}")).join("SKILL.md");
        let name = format!("skill-{changing:05}");
        let variant = format!("round {round}");
        write(&doc, &document(changing, &variant))?;
        let warm = || -> Result<Duration, Error> {
            let (elapsed, catalog) = timed(|| -> Result<_, Error> {
                warm_provider.on_change(&[(doc.clone(), ChangeKind::Modified)])?;
                Ok(warm_registry.snapshot())
            });
            let catalog = catalog?;
            expect_description(&catalog, &name, &variant)?;
            Ok(elapsed)
        };
        if round % 2 == 0 {
            report.warm_sandboxed.push(warm()?);
            report.warm_native.push(native()?);
        } else {
            report.warm_native.push(native()?);
            report.warm_sandboxed.push(warm()?);
        }

        let variant = format!("rescan {round}");
        write(&doc, &document(changing, &variant))?;
        warm_registry.invalidate_provider(&warm_provider);
        let (elapsed, catalog) = timed(|| warm_registry.snapshot());
        expect_description(&catalog, &name, &variant)?;
        report.rescan_sandboxed.push(elapsed);
    }
    Ok(report)
}

fn expect_description(catalog: &Catalog, name: &str, variant: &str) -> Result<(), Error> {
    let seen = catalog
        .get(name)
        .and_then(|s| s.description())
        .is_some_and(|d| d.contains(variant));
    if seen {
        return Ok(());
    }
    Err(Error::Bench(format!(
        "the snapshot missed the changed description of {name}"
    )))
}

fn check(found: usize, expected: usize, what: &str) -> Result<(), Error> {
    if found == expected {
        return Ok(());
    }
    Err(Error::Bench(format!(
        "{what} found {found} skills, expected {expected}"
    )))
}

/// What `bench --latency` measures.
#[derive(Debug, Clone)]
pub struct LatencyOptions {
    /// Repetitions of each operation (at least 50 for a meaningful p99).
    pub reps: usize,
    /// Native events or polling.
    pub mode: crate::watcher::WatchMode,
    /// The coalescing window used.
    pub window: Duration,
    /// Skills already in the root (the provider watches them all).
    pub background: usize,
}

impl Default for LatencyOptions {
    fn default() -> Self {
        LatencyOptions {
            reps: 50,
            mode: crate::watcher::WatchMode::Native,
            window: crate::watcher::WatchOptions::default().window,
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

impl LatencyReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let mut out = format!(
            "skillhost bench --latency: {} repetitions per operation, {}, coalescing window {:.0} ms\n",
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

    /// The JSON of `skillhost bench --latency --json` (milliseconds).
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

/// Measures, with a real watcher on a real folder, how long each file
/// operation takes to reach the catalog: create a skill, change its
/// description, rename its folder (the name follows the folder), delete it.
/// Then makes body-only edits and counts the catalog changes they cause.
pub fn latency(runtime: &Runtime, options: LatencyOptions) -> Result<LatencyReport, Error> {
    use std::sync::mpsc;
    let dir = tempfile::tempdir().map_err(|source| Error::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let root = dir.path().join("skills");
    generate_tree(&root, options.background)?;
    let root = std::fs::canonicalize(&root).map_err(|source| Error::Io {
        path: root.clone(),
        source,
    })?;
    let registry = Registry::new();
    registry.add(runtime.local_provider(&root)?);
    registry.watch(crate::watcher::WatchOptions {
        mode: options.mode,
        window: options.window,
        ..Default::default()
    })?;
    let (tx, rx) = mpsc::channel();
    let _subscription = registry.subscribe(move || {
        let _ = tx.send(());
    });
    check(
        registry.snapshot().skills.len(),
        options.background,
        "initial snapshot",
    )?;
    let timeout = Duration::from_secs(10);
    // Waits for the catalog to satisfy `done`, returning how long it took.
    let wait = |started: Instant,
                what: &str,
                done: &dyn Fn(&Catalog) -> bool|
     -> Result<Duration, Error> {
        loop {
            if done(&registry.snapshot()) {
                return Ok(started.elapsed());
            }
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(Error::Bench(format!("{what} never reached the catalog")));
            }
            let _ = rx.recv_timeout(left);
        }
    };
    let mut create = Vec::new();
    let mut describe = Vec::new();
    let mut rename = Vec::new();
    let mut delete = Vec::new();
    let body =
        |description: &str, text: &str| format!("---\ndescription: {description}\n---\n{text}\n");
    let folder_error = |path: &Path, source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    for i in 0..options.reps {
        let name = format!("probe-{i}");
        let folder = root.join(&name);
        std::fs::create_dir(&folder).map_err(|e| folder_error(&folder, e))?;
        write(&folder.join("SKILL.md"), &body("fresh", "body"))?;
        let started = Instant::now();
        create.push(wait(started, "a created skill", &|c| {
            c.get(&name).is_some()
        })?);

        write(&folder.join("SKILL.md"), &body("reworded", "body"))?;
        let started = Instant::now();
        describe.push(wait(started, "a description change", &|c| {
            c.get(&name).and_then(|s| s.description()) == Some("reworded")
        })?);

        let renamed = format!("renamed-{i}");
        let target = root.join(&renamed);
        std::fs::rename(&folder, &target).map_err(|e| folder_error(&folder, e))?;
        let started = Instant::now();
        rename.push(wait(started, "a renamed skill", &|c| {
            c.get(&renamed).is_some() && c.get(&name).is_none()
        })?);

        std::fs::remove_dir_all(&target).map_err(|e| folder_error(&target, e))?;
        let started = Instant::now();
        delete.push(wait(started, "a deleted skill", &|c| {
            c.get(&renamed).is_none()
        })?);
    }
    // Body-only edits: each must leave the catalog exactly as it was.
    let edited = root.join("skill-00000").join("SKILL.md");
    let mut body_edit_changes = 0;
    let mut last = registry.snapshot();
    for i in 0..options.reps {
        let text = std::fs::read_to_string(&edited).map_err(|e| folder_error(&edited, e))?;
        let frontmatter_end = text.find("\n---\n").map_or(text.len(), |at| at + 5);
        write(
            &edited,
            &format!(
                "{}# Skill 0, edit {i}\n\nNew body.\n",
                &text[..frontmatter_end]
            ),
        )?;
        std::thread::sleep(options.window * 3 + Duration::from_millis(20));
        while rx.try_recv().is_ok() {}
        let now = registry.snapshot();
        if now.skills != last.skills || now.diagnostics != last.diagnostics {
            body_edit_changes += 1;
        }
        last = now;
    }
    Ok(LatencyReport {
        window: options.window,
        polling: matches!(options.mode, crate::watcher::WatchMode::Poll(_)),
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

/// Timings of the injector's two per-step costs.
#[derive(Debug, Clone, Default)]
pub struct CatalogReport {
    /// Skills in the catalog rendered.
    pub skills: usize,
    /// Events in the log scanned.
    pub events: usize,
    /// Render (visibility, budget) plus digest.
    pub render: Vec<Duration>,
    /// Backward scan stopping at a visible catalog 1,000 events back.
    pub scan_found: Vec<Duration>,
    /// Backward scan over the whole log (compaction hid every catalog).
    pub scan_hidden: Vec<Duration>,
}

impl CatalogReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let line = |what: &str, samples: &[Duration]| {
            format!(
                "{what:<44} p50 {:>7.3} ms  p99 {:>7.3} ms\n",
                ms(percentile(samples, 50.0)),
                ms(percentile(samples, 99.0))
            )
        };
        format!(
            "skillhost bench --catalog: {} skills, {} log events, {} rounds\n{}{}{}",
            self.skills,
            self.events,
            self.render.len(),
            line("render + digest (8,000-character budget)", &self.render),
            line("backward scan, visible catalog found", &self.scan_found),
            line("backward scan, every catalog hidden", &self.scan_hidden),
        )
    }

    /// The JSON of `skillhost bench --catalog --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        let figures = |samples: &[Duration]| serde_json::json!({"p50_ms": ms(percentile(samples, 50.0)), "p99_ms": ms(percentile(samples, 99.0))});
        serde_json::json!({
            "skills": self.skills,
            "events": self.events,
            "render_and_digest": figures(&self.render),
            "scan_found": figures(&self.scan_found),
            "scan_all_hidden": figures(&self.scan_hidden),
        })
    }
}

/// Measures rendering plus digest of a `skills`-skill catalog under the
/// default budget, and the backward scan of an `events`-event log.
pub fn catalog(skills: usize, events: usize, rounds: usize) -> CatalogReport {
    use crate::inject::{DEFAULT_SOURCE, digest, latest, visible_to_model};
    use crate::model::{Scope, Skill};
    use crate::render::{RenderOptions, render};
    use crate::session_log::{CATALOG, Event, MemoryLog};
    use skillhost_guest_sdk::frontmatter::Frontmatter;
    use std::sync::Arc;

    let catalog = Catalog {
        complete: true,
        skills: (0..skills)
            .map(|i| {
                let name = format!("skill-{i:05}");
                let mut frontmatter = Frontmatter::defaults(&name);
                frontmatter.description = Some(format!(
                    "Use when working on generated task {i} - a realistic one-sentence description of what it does"
                ));
                frontmatter.when_to_use = (i % 3 == 0).then(|| format!("When the user mentions task {i}"));
                frontmatter.paths = if i % 20 == 0 { vec!["src/**/*.rs".into()] } else { Vec::new() };
                Arc::new(Skill {
                    source: "bench".into(),
                    scope: if i % 50 == 0 { Scope::Bundled } else { Scope::User },
                    path: format!("/skills/{name}/SKILL.md").into(),
                    base: format!("/skills/{name}").into(),
                    frontmatter,
                })
            })
            .collect(),
        diagnostics: Vec::new(),
    };
    let mut log = MemoryLog::default();
    for i in 0..events {
        let mut event = Event::new(if i == events.saturating_sub(1000) {
            CATALOG
        } else {
            "message"
        });
        if event.kind == CATALOG {
            event.source = Some(DEFAULT_SOURCE.into());
            event.digest = Some("sha256:00".into());
        }
        log.events.push(event);
    }
    let mut hidden = log.clone();
    for event in &mut hidden.events {
        event.visible = false;
    }
    let activated = std::collections::BTreeSet::new();
    let mut report = CatalogReport {
        skills,
        events,
        ..Default::default()
    };
    for _ in 0..rounds {
        let (elapsed, listing) = timed(|| {
            let listing = render(
                &visible_to_model(&catalog, &activated),
                RenderOptions::default(),
            );
            let digest = digest(&listing.inner);
            (listing, digest)
        });
        std::hint::black_box(listing);
        report.render.push(elapsed);
        let (elapsed, found) = timed(|| latest(&log, DEFAULT_SOURCE).visible.is_some());
        assert!(found, "the bench log has a visible catalog");
        report.scan_found.push(elapsed);
        let (elapsed, ever) = timed(|| latest(&hidden, DEFAULT_SOURCE).ever);
        assert!(ever, "the hidden catalog is still seen as published");
        report.scan_hidden.push(elapsed);
    }
    report
}
