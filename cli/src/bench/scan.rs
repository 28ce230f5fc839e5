//! Cold, warm and rescan snapshots of the sandboxed local provider against
//! a native scan of the same tree, interleaved, in one run.
//!
//! - cold: a fresh provider instance's first snapshot (instantiation,
//!   `init`, scan, parse, crossing the boundary, validation, merge) against
//!   a native scan of the same tree;
//! - warm: one file of the N changed; the provider is told (the event the
//!   host watcher delivers: it re-reads that file, sees the description
//!   changed and invalidates itself) and the registry takes its next
//!   snapshot, which carries only the change. Timed from the event to the
//!   new catalog, against the same native full scan;
//! - rescan: the provider invalidated from outside, without saying what
//!   changed: it stats every document and re-reads the changed one.

use super::{check, document, generate_tree, median, ms, ratio, timed, write};
use anyhow::{Context as _, Result};
use skillhost::provider::ChangeKind;
use skillhost::{Catalog, Registry, Runtime};
use skillhost_skill::frontmatter::{
    Frontmatter, MAX_DOCUMENT_BYTES, parse_document, starts_with_frontmatter,
};
use skillhost_skill::layout::{self, Candidate, EntryKind, SKILL_FILE};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to measure.
#[derive(Debug, Clone, Copy)]
pub struct BenchOptions {
    /// Skills in the generated tree.
    pub skills: usize,
    /// Timed rounds (each runs every measurement).
    pub rounds: usize,
}

/// Every timing of one run.
#[derive(Debug, Clone, Default)]
pub struct BenchReport {
    skills: usize,
    rounds: usize,
    cold_sandboxed: Vec<Duration>,
    cold_native: Vec<Duration>,
    warm_sandboxed: Vec<Duration>,
    warm_native: Vec<Duration>,
    rescan_sandboxed: Vec<Duration>,
}

impl BenchReport {
    fn cold_ratio(&self) -> f64 {
        ratio(median(&self.cold_sandboxed), median(&self.cold_native))
    }

    fn warm_ratio(&self) -> f64 {
        ratio(median(&self.warm_sandboxed), median(&self.warm_native))
    }

    fn rescan_ratio(&self) -> f64 {
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

/// The document an entry of a root holds, by the same rules the local
/// provider applies (`skillhost-skill`'s layout), or `None`.
fn document_of(root: &Path, name: &str, kind: EntryKind) -> Option<(PathBuf, String, bool)> {
    let path = root.join(name);
    let candidate = match layout::classify(name, kind)? {
        Candidate::Link => {
            let target = std::fs::metadata(&path).ok()?;
            let kind = if target.is_dir() {
                EntryKind::Directory
            } else if target.is_file() {
                EntryKind::File
            } else {
                return None;
            };
            match layout::classify(name, kind)? {
                Candidate::Link => return None,
                resolved => resolved,
            }
        }
        other => other,
    };
    match candidate {
        Candidate::Bundle { default_name } => Some((path.join(SKILL_FILE), default_name, false)),
        Candidate::Flat { .. } if layout::is_misplaced_document(name) => None,
        Candidate::Flat { default_name } => Some((path, default_name, true)),
        Candidate::Link => None,
    }
}

/// A native scan: list the root, classify each entry as the local provider
/// does, read each document and parse it with the same parser.
pub fn native_scan(root: &Path) -> Vec<Frontmatter> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        // A name that is not UTF-8 cannot name a skill.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let kind = match entry.file_type() {
            Ok(t) if t.is_dir() => EntryKind::Directory,
            Ok(t) if t.is_file() => EntryKind::File,
            Ok(t) if t.is_symlink() => EntryKind::Symlink,
            _ => EntryKind::Other,
        };
        let Some((doc, default_name, flat)) = document_of(root, &name, kind) else {
            continue;
        };
        let (doc, meta) = match std::fs::metadata(&doc) {
            Ok(meta) => (doc, meta),
            // A folder without a SKILL.md may have a lowercase skill.md.
            Err(_) if !flat => {
                let lowercase = doc.with_file_name(layout::LOWERCASE_SKILL_FILE);
                match std::fs::metadata(&lowercase) {
                    Ok(meta) => (lowercase, meta),
                    Err(_) => continue,
                }
            }
            Err(_) => continue,
        };
        if !meta.is_file() || meta.len() > MAX_DOCUMENT_BYTES {
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

/// Runs the benchmark on a fresh temporary tree.
pub fn run(runtime: &Runtime, options: BenchOptions) -> Result<BenchReport> {
    let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
    let root = dir.path().join("skills");
    generate_tree(&root, options.skills)?;
    let root = std::fs::canonicalize(&root).context("cannot resolve the generated tree")?;
    // Compile (or load from the cache) once, outside the timings.
    runtime.local_component()?;

    let warm_registry = Registry::new();
    let warm_provider = runtime.local_provider(&root)?;
    warm_registry.add(warm_provider.clone())?;
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
    let doc = root.join(format!("skill-{changing:05}")).join(SKILL_FILE);
    let name = format!("skill-{changing:05}");
    let native = || -> Result<Duration> {
        let (elapsed, found) = timed(|| native_scan(&root).len());
        check(found, options.skills, "native scan")?;
        Ok(elapsed)
    };
    for round in 0..options.rounds {
        let cold = || -> Result<Duration> {
            let (elapsed, found) = timed(|| -> Result<usize> {
                let registry = Registry::new();
                registry.add(runtime.local_provider(&root)?)?;
                Ok(registry.snapshot().skills.len())
            });
            check(found?, options.skills, "cold snapshot")?;
            Ok(elapsed)
        };
        // Alternate which goes first, so neither always meets a warm cache.
        let (first, second) = interleaved(round, cold, native)?;
        report.cold_sandboxed.push(first);
        report.cold_native.push(second);

        let variant = format!("round {round}");
        write(&doc, &document(changing, &variant))?;
        let warm = || -> Result<Duration> {
            let (elapsed, catalog) = timed(|| -> Result<_> {
                warm_provider.on_change(&[(doc.clone(), ChangeKind::Modified)])?;
                Ok(warm_registry.snapshot())
            });
            let catalog = catalog?;
            expect_description(&catalog, &name, &variant)?;
            Ok(elapsed)
        };
        let (first, second) = interleaved(round, warm, native)?;
        report.warm_sandboxed.push(first);
        report.warm_native.push(second);

        let variant = format!("rescan {round}");
        write(&doc, &document(changing, &variant))?;
        warm_registry.invalidate_provider(&warm_provider);
        let (elapsed, catalog) = timed(|| warm_registry.snapshot());
        expect_description(&catalog, &name, &variant)?;
        report.rescan_sandboxed.push(elapsed);
    }
    Ok(report)
}

/// Runs `sandboxed` and `native`, the first of them on even rounds, and
/// returns their timings in that order.
fn interleaved(
    round: usize,
    sandboxed: impl FnOnce() -> Result<Duration>,
    native: impl Fn() -> Result<Duration>,
) -> Result<(Duration, Duration)> {
    if round.is_multiple_of(2) {
        let s = sandboxed()?;
        Ok((s, native()?))
    } else {
        let n = native()?;
        Ok((sandboxed()?, n))
    }
}

fn expect_description(catalog: &Catalog, name: &str, variant: &str) -> Result<()> {
    let seen = catalog
        .get(name)
        .and_then(|s| s.description())
        .is_some_and(|d| d.contains(variant));
    anyhow::ensure!(
        seen,
        "bench: the snapshot missed the changed description of {name}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_native_baseline_finds_what_the_provider_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("bundle")).unwrap();
        std::fs::write(root.join("bundle/SKILL.md"), "---\ndescription: b\n---\n").unwrap();
        std::fs::write(root.join("Flat.MD"), "---\ndescription: f\n---\n").unwrap();
        std::fs::write(root.join("README.md"), "# not a skill\n").unwrap();
        std::fs::write(root.join("SKILL.md"), "---\ndescription: misplaced\n---\n").unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        std::fs::write(root.join(".hidden/SKILL.md"), "---\ndescription: h\n---\n").unwrap();
        let names: Vec<String> = native_scan(root).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["Flat", "bundle"]);
    }
}
