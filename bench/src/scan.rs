//! Cold, warm and rescan snapshots of the sandboxed local provider against
//! a native full scan of the same tree, interleaved, in one run.
//!
//! The native scan reads the way the host reads for the sandbox: through
//! the host's own `files` calls ([`HostReader`], `read-frontmatters` as the
//! local provider asks), in the local provider's batches and with its
//! read-ahead (`skillhost_skill::reads`), so a ratio
//! measures the sandbox and not a different I/O strategy. It classifies
//! with the same layout rules, makes the same parse, frontmatter JSON
//! included, and ends where the sandboxed side ends: the host's skill
//! records merged into a catalog (what the host would do itself without a
//! sandbox). What is left between the two is the sandbox: instantiation,
//! the guest running at WebAssembly speed, and the boundary.
//!
//! - cold: a fresh provider instance's first snapshot (instantiation,
//!   `init`, scan, parse, crossing the boundary, validation, merge) against
//!   a native full scan: like for like. Its linear memory is one an earlier
//!   instance left (wiped when that instance ended), as every instance but
//!   a process's first gets, just as the native scan reuses the pages its
//!   allocator already holds;
//! - warm: one file of the N changed; the provider is told (the event the
//!   host watcher delivers: it re-reads that file, sees the description
//!   changed and invalidates itself) and the registry takes its next
//!   snapshot, which carries only the change. Timed from the event to the
//!   new catalog, against a full native rescan: what watching saves over
//!   scanning again, not a like-for-like ratio;
//! - rescan: the provider invalidated from outside, without saying what
//!   changed: it stats every document and re-reads the changed one;
//!   against the same full native rescan.
//!
//! Beside them, the host's share of a 0.3.0 snapshot that the native scan
//! does not have: deriving every skill's typed fields from the JSON its
//! provider sent (`skillhost_skill::frontmatter::from_json`), timed over
//! the same N documents' JSON, and shown as a share of the cold snapshot.

use super::{check, document, generate_tree, median, ms, ratio, timed, write};
use anyhow::{Context as _, Result};
use skillhost::model::{Location, Scope, Skill};
use skillhost::provider::ChangeKind;
use skillhost::provider::ProviderView;
use skillhost::registry::merge;
use skillhost::sandbox::{HostReader, ReadError, Speedups};
use skillhost::{Catalog, Registry, Runtime};
use skillhost_skill::frontmatter::{
    Frontmatter, MAX_DOCUMENT_BYTES, from_json, parse_document_json, starts_with_frontmatter,
};
use skillhost_skill::layout::{self, Candidate, EntryKind, LOWERCASE_SKILL_FILE, SKILL_FILE};
use skillhost_skill::reads::{BATCH, READ_AHEAD_FROM};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// What the native side of every ratio is.
fn baseline() -> String {
    format!(
        "full scan through the host's own files calls (read-frontmatters in batches of \
         {BATCH}, read-ahead from {READ_AHEAD_FROM} documents, the same worker pool), same \
         layout rules, the same parse (frontmatter JSON included) and the same catalog (the \
         host's skill records, merged as the registry merges), no sandbox"
    )
}
/// What the cold ratio compares.
const COLD: &str = "a fresh sandboxed instance's first snapshot (init, scan, parse, boundary; \
                    the batches sent ahead checked on the engine's workers while the \
                    guest parses) against a native full scan: like for like";
/// What the warm ratio compares.
const WARM: &str = "one changed file (event, re-read, delta snapshot) against a full native \
                    rescan: what watching saves, not like for like";
/// What the rescan ratio compares.
const RESCAN: &str = "a blind invalidation (every document stat'ed, the changed one re-read) \
                      against a full native rescan";

/// The targets the issue sets for the two headline ratios.
const COLD_TARGET: f64 = 1.2;
/// See [`COLD_TARGET`].
const WARM_TARGET: f64 = 0.1;

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
    /// The full native rescans run beside the warm and rescan figures.
    rescan_native: Vec<Duration>,
    rescan_sandboxed: Vec<Duration>,
    /// The host deriving every skill's fields from its JSON, once a round.
    json_to_fields: Vec<Duration>,
    /// The cold sandboxed snapshot with one speedup off, per speedup.
    without: Vec<(&'static str, Vec<Duration>)>,
}

/// Each of the host's speedups by the name the report gives it, and the
/// switches with only that one off.
fn each_off() -> [(&'static str, Speedups); 4] {
    let all = Speedups::ALL;
    [
        (
            "read_ahead",
            Speedups {
                read_ahead: false,
                ..all
            },
        ),
        (
            "parallel_reads",
            Speedups {
                parallel_reads: false,
                ..all
            },
        ),
        (
            "checks_ahead",
            Speedups {
                checks_ahead: false,
                ..all
            },
        ),
        (
            "parallel_checks",
            Speedups {
                parallel_checks: false,
                ..all
            },
        ),
    ]
}

/// What the speedup lines compare.
const WITHOUT: &str = "the cold sandboxed snapshot with one of the host's speedups switched \
                       off (the engine's worker pool doing less), against the same snapshot \
                       with all on, in the same rounds: what that speedup buys";

impl BenchReport {
    fn cold_ratio(&self) -> f64 {
        ratio(median(&self.cold_sandboxed), median(&self.cold_native))
    }

    fn warm_ratio(&self) -> f64 {
        ratio(median(&self.warm_sandboxed), median(&self.rescan_native))
    }

    fn rescan_ratio(&self) -> f64 {
        ratio(median(&self.rescan_sandboxed), median(&self.rescan_native))
    }

    /// The JSON-to-fields step as a share of the cold sandboxed snapshot.
    fn json_share(&self) -> f64 {
        ratio(median(&self.json_to_fields), median(&self.cold_sandboxed))
    }

    /// The cold sandboxed snapshot with `speedup` off, against all on.
    fn without_ratio(&self, times: &[Duration]) -> f64 {
        ratio(median(times), median(&self.cold_sandboxed))
    }

    /// The human-readable report: the timings, what each ratio compares,
    /// then the ratio line last.
    pub fn render(&self) -> String {
        let mut without = String::new();
        for (speedup, times) in &self.without {
            without.push_str(&format!(
                "cold without {speedup:<15} {:>9.3} ms   ({:.2} x the cold sandboxed snapshot with all on)\n",
                ms(median(times)),
                self.without_ratio(times),
            ));
        }
        format!(
            "skillhost-bench scan: {} skills, {} rounds interleaved, medians\n\
             native: {}\n\
             cold    sandboxed {:>9.3} ms   native full scan   {:>9.3} ms\n\
             warm    sandboxed {:>9.3} ms   native full rescan {:>9.3} ms   (sandboxed: one changed file)\n\
             rescan  sandboxed {:>9.3} ms   native full rescan {:>9.3} ms   (sandboxed: blind invalidation)\n\
             host JSON-to-fields step {:>9.3} ms for {} skills ({:.1}% of the cold sandboxed snapshot, included in it)\n\
             {without}\
             what each ratio sandboxed/native compares:\n\
             \x20 cold without a speedup: {WITHOUT}\n\
             \x20 cold   (target <= {COLD_TARGET}): {COLD}\n\
             \x20 warm   (target <= {WARM_TARGET}): {WARM}\n\
             \x20 rescan (ratio {:.2}): {RESCAN}\n\
             ratio sandboxed/native: cold {:.2} warm {:.2}\n",
            self.skills,
            self.rounds,
            baseline(),
            ms(median(&self.cold_sandboxed)),
            ms(median(&self.cold_native)),
            ms(median(&self.warm_sandboxed)),
            ms(median(&self.rescan_native)),
            ms(median(&self.rescan_sandboxed)),
            ms(median(&self.rescan_native)),
            ms(median(&self.json_to_fields)),
            self.skills,
            self.json_share() * 100.0,
            self.rescan_ratio(),
            self.cold_ratio(),
            self.warm_ratio(),
        )
    }

    /// The JSON of `skillhost-bench scan --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        let native_rescan = ms(median(&self.rescan_native));
        serde_json::json!({
            "skills": self.skills,
            "rounds": self.rounds,
            "baseline": baseline(),
            "cold": {
                "sandboxed_ms": ms(median(&self.cold_sandboxed)),
                "native_ms": ms(median(&self.cold_native)),
                "ratio": self.cold_ratio(),
                "target": COLD_TARGET,
                "compares": COLD,
            },
            "warm": {
                "sandboxed_ms": ms(median(&self.warm_sandboxed)),
                "native_ms": native_rescan,
                "ratio": self.warm_ratio(),
                "target": WARM_TARGET,
                "compares": WARM,
            },
            "rescan": {
                "sandboxed_ms": ms(median(&self.rescan_sandboxed)),
                "native_ms": native_rescan,
                "ratio": self.rescan_ratio(),
                "compares": RESCAN,
            },
            "json_to_fields": {
                "ms": ms(median(&self.json_to_fields)),
                "share_of_cold": self.json_share(),
                "compares": "the host deriving every skill's typed fields from the frontmatter JSON \
                             its provider sent, over the same documents, against the cold \
                             sandboxed snapshot that includes it",
            },
            "without": {
                "compares": WITHOUT,
                "speedups": self.without.iter().map(|(speedup, times)| serde_json::json!({
                    "speedup": speedup,
                    "cold_ms": ms(median(times)),
                    "ratio_to_all_on": self.without_ratio(times),
                })).collect::<Vec<_>>(),
            },
        })
    }
}

/// A document to read: its guest path, the name it defaults to, and
/// whether it is a flat file (a bundle's may be a lowercase `skill.md`).
struct Doc {
    path: String,
    default_name: String,
    flat: bool,
}

/// The document an entry of a root holds, by the same rules the local
/// provider applies (`skillhost-skill`'s layout), once a link's target kind
/// is known; `None` when it cannot hold a skill.
fn document_of(root: &str, name: &str, kind: EntryKind) -> Option<Doc> {
    let path = format!("{root}/{name}");
    match layout::classify(name, kind)? {
        Candidate::Bundle { default_name } => Some(Doc {
            path: format!("{path}/{SKILL_FILE}"),
            default_name,
            flat: false,
        }),
        Candidate::Flat { .. } if layout::is_misplaced_document(name) => None,
        Candidate::Flat { default_name } => Some(Doc {
            path,
            default_name,
            flat: true,
        }),
        Candidate::Link => None,
    }
}

/// A native scan of the reader's first root (on the host at `host_root`), reading as the local provider
/// does through the same host calls (`providers/local/src/reads.rs`): one
/// listing, one batched stat of the links, the documents announced for
/// read-ahead when there are [`READ_AHEAD_FROM`] or more, read in batches of
/// [`BATCH`], bundles without a `SKILL.md` read again through their
/// `skill.md`; each entry classified by the same layout rules and parsed
/// by the same parser, and the skills merged into a catalog as the
/// registry merges a provider's view. Only the sandbox is missing.
pub fn native_scan(reader: &mut HostReader, host_root: &Path) -> Catalog {
    let Some(root) = reader.roots().first().cloned() else {
        return merge(&[]);
    };
    let mut call = reader.call();
    let Ok(mut listed) = call.list_dir(&root) else {
        return merge(&[]);
    };
    // The provider keeps a root's entries ordered by name.
    listed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let links: Vec<String> = listed
        .iter()
        .filter(|(name, kind)| layout::classify(name, *kind) == Some(Candidate::Link))
        .map(|(name, _)| format!("{root}/{name}"))
        .collect();
    let mut targets = if links.is_empty() {
        Vec::new()
    } else {
        call.stat_kinds(links)
    }
    .into_iter();
    let docs: Vec<Doc> = listed
        .iter()
        .filter_map(|(name, kind)| match layout::classify(name, *kind)? {
            Candidate::Link => document_of(&root, name, targets.next()?.ok()?),
            _ => document_of(&root, name, *kind),
        })
        .collect();
    let paths: Vec<String> = docs.iter().map(|d| d.path.clone()).collect();
    if paths.len() >= READ_AHEAD_FROM {
        call.prefetch(paths.clone(), MAX_DOCUMENT_BYTES);
    }
    let mut out = Vec::with_capacity(docs.len());
    let mut lowercase = Vec::new();
    for (batch, paths) in docs.chunks(BATCH).zip(paths.chunks(BATCH)) {
        let reads = call.read_frontmatters(paths.to_vec(), MAX_DOCUMENT_BYTES);
        for (index, doc) in batch.iter().enumerate() {
            match reads.get(index) {
                Err(ReadError::NotFound) if !doc.flat => {
                    let folder = doc.path.strip_suffix(SKILL_FILE).unwrap_or_default();
                    lowercase.push(Doc {
                        path: format!("{folder}{LOWERCASE_SKILL_FILE}"),
                        default_name: doc.default_name.clone(),
                        flat: false,
                    });
                }
                read => out.extend(parse(doc, read).map(|p| skill(doc, p, &root, host_root))),
            }
        }
    }
    let paths: Vec<String> = lowercase.iter().map(|d| d.path.clone()).collect();
    for (batch, paths) in lowercase.chunks(BATCH).zip(paths.chunks(BATCH)) {
        let reads = call.read_frontmatters(paths.to_vec(), MAX_DOCUMENT_BYTES);
        for (index, doc) in batch.iter().enumerate() {
            out.extend(parse(doc, reads.get(index)).map(|p| skill(doc, p, &root, host_root)));
        }
    }
    let view = ProviderView {
        skills: out,
        complete: true,
        seen_complete: true,
        ..ProviderView::default()
    };
    merge(&[Arc::new(view)])
}

/// The frontmatter of a document read and its JSON, when it is a skill's.
fn parse(doc: &Doc, read: Result<&[u8], ReadError>) -> Option<(Frontmatter, String)> {
    let bytes = read.ok()?;
    if doc.flat && !starts_with_frontmatter(bytes) {
        return None;
    }
    // The same parse the provider makes, JSON included: the host would
    // make that JSON itself if it parsed the documents.
    parse_document_json(bytes, &doc.default_name)
        .ok()
        .map(|(parsed, json)| (parsed.frontmatter, json))
}

/// The host's record of a skill found at guest path `doc.path`, as the
/// boundary makes it from a provider's entry.
fn skill(
    doc: &Doc,
    (frontmatter, json): (Frontmatter, String),
    guest_root: &str,
    host_root: &Path,
) -> Arc<Skill> {
    let rel = doc
        .path
        .strip_prefix(guest_root)
        .unwrap_or(&doc.path)
        .trim_start_matches('/');
    let path = host_root.join(rel);
    // A flat skill's relative paths resolve against its root.
    let base = match path.parent() {
        Some(folder) if !doc.flat => folder.to_path_buf(),
        _ => host_root.to_path_buf(),
    };
    Arc::new(Skill {
        source: "native".to_string(),
        scope: Scope::User,
        path: Location::Path(path),
        base: Location::Path(base),
        frontmatter,
        json: Some(Arc::from(json)),
    })
}

/// Runs the benchmark on a fresh temporary tree.
pub fn run(runtime: &Runtime, options: BenchOptions) -> Result<BenchReport> {
    let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
    let root = dir.path().join("skills");
    generate_tree(&root, options.skills)?;
    let root = std::fs::canonicalize(&root).context("cannot resolve the generated tree")?;
    // Compile (or load from the cache) once, outside the timings.
    runtime.local_component()?;
    // Granted once, as a warm provider instance holds its mounts: the
    // native side pays for reading, not for the sandbox's grants.
    let mut reader = HostReader::for_roots(std::slice::from_ref(&root), runtime.engine().workers());

    let warm_registry = Registry::new();
    let warm_provider = runtime.local_provider(&root)?;
    warm_registry.add(warm_provider.clone())?;
    check(
        warm_registry.snapshot().skills.len(),
        options.skills,
        "warm-up snapshot",
    )?;
    check(
        native_scan(&mut reader, &root).skills.len(),
        options.skills,
        "warm-up native scan",
    )?;

    let mut report = BenchReport {
        skills: options.skills,
        rounds: options.rounds,
        without: each_off()
            .map(|(speedup, _)| (speedup, Vec::new()))
            .to_vec(),
        ..Default::default()
    };
    let workers = runtime.engine().workers();
    let changing = options.skills / 2;
    let doc = root.join(format!("skill-{changing:05}")).join(SKILL_FILE);
    let name = format!("skill-{changing:05}");
    // What a 0.3.0 provider sends for each skill: the raw text, its JSON
    // and the name; the host derives the fields from these.
    let sent: Vec<(String, String, String)> = native_scan(&mut reader, &root)
        .skills
        .iter()
        .map(|s| {
            let json = s.json.as_deref().unwrap_or("{}").to_string();
            (s.frontmatter.raw.clone(), json, s.name().to_string())
        })
        .collect();
    let mut native = || -> Result<Duration> {
        let (elapsed, found) = timed(|| native_scan(&mut reader, &root).skills.len());
        check(found, options.skills, "native scan")?;
        Ok(elapsed)
    };
    for round in 0..options.rounds {
        let cold = || -> Result<Duration> {
            let (elapsed, made) = timed(|| -> Result<(Registry, usize)> {
                let registry = Registry::new();
                registry.add(runtime.local_provider(&root)?)?;
                let found = registry.snapshot().skills.len();
                Ok((registry, found))
            });
            // Tearing the instance down is not part of its first snapshot
            // (the native scan has nothing to tear down either).
            let (registry, found) = made?;
            drop(registry);
            check(found, options.skills, "cold snapshot")?;
            Ok(elapsed)
        };
        // Alternate which goes first, so neither always meets a warm cache.
        let (first, second) = interleaved(round, cold, &mut native)?;
        report.cold_sandboxed.push(first);
        report.cold_native.push(second);
        for (index, (_, speedups)) in each_off().into_iter().enumerate() {
            workers.set_speedups(speedups);
            let elapsed = cold();
            workers.set_speedups(Speedups::ALL);
            report.without[index].1.push(elapsed?);
        }

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
        let (first, second) = interleaved(round, warm, &mut native)?;
        report.warm_sandboxed.push(first);
        report.rescan_native.push(second);

        let variant = format!("rescan {round}");
        write(&doc, &document(changing, &variant))?;
        warm_registry.invalidate_provider(&warm_provider);
        let (elapsed, catalog) = timed(|| warm_registry.snapshot());
        expect_description(&catalog, &name, &variant)?;
        report.rescan_sandboxed.push(elapsed);

        let (elapsed, derived) = timed(|| {
            sent.iter()
                .filter(|(raw, json, name)| from_json(raw, json, name).is_ok())
                .count()
        });
        check(derived, options.skills, "JSON-to-fields step")?;
        report.json_to_fields.push(elapsed);
    }
    Ok(report)
}

/// Runs `sandboxed` and `native`, the first of them on even rounds, and
/// returns their timings in that order.
fn interleaved(
    round: usize,
    sandboxed: impl FnOnce() -> Result<Duration>,
    native: impl FnOnce() -> Result<Duration>,
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
#[path = "scan_tests.rs"]
mod tests;
