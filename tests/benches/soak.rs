//! Soak run (issue: a hostile provider costs the host nothing unbounded):
//! 20 local providers over 2,000 skills watched natively, a writer changing,
//! creating and deleting skills throughout, and one hostile provider that
//! traps on every snapshot, so it faults and is restarted with backoff in a
//! loop. After a warm-up the host's threads, open descriptors and resident
//! memory are noted; after the run they must be within 10% of that level
//! (threads and descriptors also within a small constant, for the watcher's
//! and restarts' own), and the final catalog must equal what is on disk.
//!
//! `cargo bench --workspace --bench soak` (about a minute;
//! `SOAK_SECONDS=N` changes the run's length). It exits non-zero when a
//! figure is out of bounds, and prints each figure with what it compares.

use skillhost::registry::watch::WatchOptions;
use skillhost::sandbox::Limits;
use skillhost::{Registry, Runtime};
use skillhost_tests::{HOSTILE_GUEST, ProcessUsage, provider_of, shared_cache_dir, skill_md};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const PROVIDERS: usize = 20;
const SKILLS_EACH: usize = 100;

/// Threads, descriptors and resident memory of this process.
#[derive(Debug, Clone, Copy)]
struct Level {
    threads: usize,
    descriptors: usize,
    resident_kib: u64,
}

fn level() -> Level {
    let now = ProcessUsage::now();
    Level {
        threads: now.threads,
        descriptors: now.descriptors,
        resident_kib: now.resident_kib(),
    }
}

/// Tiny deterministic generator: the run is the same every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn root_of(base: &Path, p: usize) -> PathBuf {
    base.join(format!("root-{p:02}"))
}

fn skill_name(p: usize, s: usize) -> String {
    format!("p{p:02}-s{s:03}")
}

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("create a skill folder");
    std::fs::write(dir.join("SKILL.md"), skill_md(name, description)).expect("write a skill");
}

/// What is on disk: every skill's name and description, as written.
fn on_disk(base: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for p in 0..PROVIDERS {
        let Ok(entries) = std::fs::read_dir(root_of(base, p)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(text) = std::fs::read_to_string(entry.path().join("SKILL.md")) else {
                continue;
            };
            let description = text
                .lines()
                .find_map(|l| l.strip_prefix("description: "))
                .unwrap_or_default();
            out.insert(
                entry.file_name().to_string_lossy().into_owned(),
                description.to_string(),
            );
        }
    }
    out
}

/// What the catalog holds, from the local providers only.
fn in_catalog(registry: &Registry) -> BTreeMap<String, String> {
    registry
        .snapshot()
        .skills
        .iter()
        .filter(|s| s.source != "hostile")
        .map(|s| {
            (
                s.name().to_string(),
                s.description().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// One step of the writer: a description changed, a skill created, or one
/// deleted (never below half of a root's skills).
fn write_step(base: &Path, rng: &mut Rng, generation: u64) {
    let p = rng.below(PROVIDERS);
    let root = root_of(base, p);
    match rng.below(4) {
        0 => {
            let s = SKILLS_EACH + rng.below(SKILLS_EACH);
            write_skill(
                &root,
                &skill_name(p, s),
                &format!("Created at {generation}"),
            );
        }
        1 => {
            let s = SKILLS_EACH / 2 + rng.below(SKILLS_EACH * 3 / 2);
            let _ = std::fs::remove_dir_all(root.join(skill_name(p, s)));
        }
        _ => {
            let s = rng.below(SKILLS_EACH);
            write_skill(
                &root,
                &skill_name(p, s),
                &format!("Changed at {generation}"),
            );
        }
    }
}

fn within(after: f64, warm: f64, slack: f64) -> bool {
    after <= warm * 1.10 + slack
}

fn main() {
    let seconds: u64 = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let runtime = Runtime::with_cache_dir(Some(shared_cache_dir())).expect("the sandbox starts");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let base = std::fs::canonicalize(dir.path()).expect("resolve the temporary folder");
    for p in 0..PROVIDERS {
        for s in 0..SKILLS_EACH {
            write_skill(&root_of(&base, p), &skill_name(p, s), "Written at start");
        }
    }
    let hostile_root = base.join("hostile");
    std::fs::create_dir_all(&hostile_root).expect("create the hostile root");
    let registry = Registry::new();
    let hostile = provider_of(
        &runtime,
        "hostile",
        runtime
            .load_component(HOSTILE_GUEST)
            .expect("the hostile guest loads"),
        vec![hostile_root],
        &[("attack", "trap"), ("in", "snapshot")],
        Limits {
            deadline: Duration::from_millis(300),
            restart_initial: Duration::from_millis(20),
            restart_max: Duration::from_millis(200),
            ..Limits::default()
        },
    );
    registry
        .add(hostile.clone())
        .expect("add the hostile provider");
    for p in 0..PROVIDERS {
        registry
            .add(
                runtime
                    .local_provider(root_of(&base, p))
                    .expect("a local provider"),
            )
            .expect("add a local provider");
    }
    registry
        .watch(WatchOptions::default())
        .expect("the watcher starts");

    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let run = |duration: Duration, rng: &mut Rng| {
        let started = Instant::now();
        let mut snapshots = 0u64;
        std::thread::scope(|scope| {
            let writer_stop = stop.clone();
            let writer_writes = writes.clone();
            let base = &base;
            let mut writer_rng = Rng(rng.next() | 1);
            scope.spawn(move || {
                while !writer_stop.load(Ordering::Acquire) {
                    let generation = writer_writes.fetch_add(1, Ordering::AcqRel);
                    write_step(base, &mut writer_rng, generation);
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
            while started.elapsed() < duration {
                // The hostile provider is asked again, faults, and restarts.
                hostile.invalidate();
                let catalog = registry.snapshot();
                assert!(catalog.skills.len() >= PROVIDERS * SKILLS_EACH / 2);
                snapshots += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            stop.store(true, Ordering::Release);
        });
        stop.store(false, Ordering::Release);
        snapshots
    };

    let mut rng = Rng(0x5eed_2026_1201);
    let warm_up = Duration::from_secs((seconds / 6).max(5));
    run(warm_up, &mut rng);
    std::thread::sleep(Duration::from_millis(500));
    let warm = level();
    let snapshots = run(Duration::from_secs(seconds), &mut rng);

    // Quiet: the last writes settle, then the catalog must equal the disk.
    let expected = on_disk(&base);
    let settle = Instant::now();
    let mut got = in_catalog(&registry);
    while got != expected && settle.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
        got = in_catalog(&registry);
    }
    let equal = got == expected;
    std::thread::sleep(Duration::from_millis(500));
    let after = level();

    let catalog = registry.snapshot();
    let hostile_failed = catalog
        .diagnostics
        .iter()
        .any(|d| d.source.as_deref() == Some("hostile"));
    println!(
        "soak: {PROVIDERS} local providers over {} skills at start, native watching, a writer \
         ({} writes), one provider trapping on every snapshot ({snapshots} snapshots), {seconds} s \
         after a {} s warm-up",
        PROVIDERS * SKILLS_EACH,
        writes.load(Ordering::Acquire),
        warm_up.as_secs()
    );
    let threads_ok = within(after.threads as f64, warm.threads as f64, 2.0);
    let descriptors_ok = within(after.descriptors as f64, warm.descriptors as f64, 4.0);
    let memory_ok = within(after.resident_kib as f64, warm.resident_kib as f64, 0.0);
    let verdict = |ok: bool| if ok { "ok" } else { "OUT OF BOUNDS" };
    println!(
        "threads after warm-up {} -> after the run {} (ratio {:.3}; bound 1.10 + 2): {}",
        warm.threads,
        after.threads,
        after.threads as f64 / warm.threads.max(1) as f64,
        verdict(threads_ok)
    );
    println!(
        "descriptors after warm-up {} -> after the run {} (ratio {:.3}; bound 1.10 + 4): {}",
        warm.descriptors,
        after.descriptors,
        after.descriptors as f64 / warm.descriptors.max(1) as f64,
        verdict(descriptors_ok)
    );
    println!(
        "resident memory after warm-up {} KiB -> after the run {} KiB (ratio {:.3}; bound 1.10): {}",
        warm.resident_kib,
        after.resident_kib,
        after.resident_kib as f64 / warm.resident_kib.max(1) as f64,
        verdict(memory_ok)
    );
    println!(
        "final catalog equals the disk ({} skills): {}; the hostile provider reported: {}",
        expected.len(),
        if equal { "yes" } else { "NO" },
        if hostile_failed { "yes" } else { "NO" }
    );
    if !equal {
        let missing: Vec<_> = expected
            .keys()
            .filter(|k| !got.contains_key(*k))
            .take(5)
            .collect();
        let extra: Vec<_> = got
            .keys()
            .filter(|k| !expected.contains_key(*k))
            .take(5)
            .collect();
        let stale: Vec<_> = expected
            .iter()
            .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
            .take(5)
            .collect();
        println!("  missing {missing:?}, extra {extra:?}, stale {stale:?}");
    }
    registry.dispose();
    if !(threads_ok && descriptors_ok && memory_ok && equal && hostile_failed) {
        std::process::exit(1);
    }
}
