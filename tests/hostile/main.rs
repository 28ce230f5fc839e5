//! Hostile providers cannot hurt the host. Each test runs the
//! hostile guest (`tests/guests/hostile`) beside a well-behaved local
//! provider: the host survives, the other provider still answers correctly,
//! the bad provider's last complete view is kept where it had one, and a
//! diagnostic names the provider and the cause.
//!
//! The tests run one at a time (see [`SERIAL`]): each compares the
//! process's threads, descriptors and resident memory after the attack with
//! what they were before it.

mod entries;
mod memory;
mod reach;
mod time;

use skillhost::provider::ChangeKind;
use skillhost::sandbox::{Limits, MAX_WORKERS, Workers};
use skillhost::{Catalog, Diagnostic, Provider, Registry};
use skillhost_tests::{
    HOSTILE_GUEST, ProcessUsage, mkfifo, provider_of, runtime, skill_md, tree, write,
};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const FLAG: &str = "attack-now";

/// Held by every arena: the process-wide figures one test compares are
/// not disturbed by another test's providers.
static SERIAL: Mutex<()> = Mutex::new(());

struct Arena {
    good_root: tempfile::TempDir,
    hostile_root: tempfile::TempDir,
    registry: Registry,
    hostile: Arc<Provider>,
    good: Arc<Provider>,
    limits: Limits,
    /// The engine's worker pool, which reads ahead for the providers.
    workers: Workers,
    // Dropped last: the providers above go first.
    _serial: MutexGuard<'static, ()>,
}

fn limits() -> Limits {
    Limits {
        deadline: Duration::from_millis(300),
        memory_bytes: 64 * 1024 * 1024,
        restart_initial: Duration::from_millis(20),
        ..Limits::default()
    }
}

/// The same with time to spare: for attacks that must hit another limit
/// first, even on a loaded machine (filling 64 MiB under load can take
/// longer than the short deadline).
fn patient() -> Limits {
    Limits {
        deadline: Duration::from_secs(10),
        ..limits()
    }
}

/// A registry with the hostile provider (attacking `attack` in `export`
/// once the flag file exists) above a well-behaved one.
fn arena(attack: &str, export: &str, armed_from_start: bool, limits: Limits) -> Arena {
    arena_with(attack, export, armed_from_start, limits, &[])
}

/// The same, with more settings for the hostile provider.
fn arena_with(
    attack: &str,
    export: &str,
    armed_from_start: bool,
    limits: Limits,
    settings: &[(&str, &str)],
) -> Arena {
    let serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let good_root = tree(&[("good/SKILL.md", skill_md("good", "Still fine").as_bytes())]);
    let hostile_root = tree(&[("inside.txt", b"x")]);
    if armed_from_start {
        write(hostile_root.path(), FLAG, b"");
    }
    let runtime = runtime();
    let mut all = vec![("attack", attack), ("in", export), ("when", FLAG)];
    all.extend_from_slice(settings);
    let hostile = provider_of(
        &runtime,
        "hostile",
        runtime.load_component(HOSTILE_GUEST).unwrap(),
        vec![hostile_root.path().to_path_buf()],
        &all,
        limits,
    );
    let good = runtime.local_provider(good_root.path()).unwrap();
    let registry = Registry::new();
    registry.add(hostile.clone()).unwrap();
    registry.add(good.clone()).unwrap();
    Arena {
        good_root,
        hostile_root,
        registry,
        hostile,
        good,
        limits,
        workers: runtime.engine().workers().clone(),
        _serial: serial,
    }
}

impl Arena {
    fn arm(&self) {
        write(self.hostile_root.path(), FLAG, b"");
    }

    /// An honest first snapshot: both providers' skills, complete.
    fn honest(&self) -> Arc<Catalog> {
        let catalog = self.registry.snapshot();
        assert!(catalog.complete, "{:?}", catalog.diagnostics);
        assert!(catalog.get("steady").is_some() && catalog.get("good").is_some());
        catalog
    }

    fn attacked(&self) -> Arc<Catalog> {
        self.hostile.invalidate();
        self.registry.snapshot()
    }

    /// A new skill in the good root, and the good provider told: the next
    /// snapshot must carry it, whatever the hostile provider does.
    fn good_provider_changes(&self, name: &str) {
        write(
            self.good_root.path(),
            &format!("{name}/SKILL.md"),
            skill_md(name, "Added during the attack").as_bytes(),
        );
        self.good.invalidate();
    }
}

/// What the host process holds now (threads, descriptors, resident bytes).
#[derive(Debug, Clone, Copy)]
struct Usage {
    threads: usize,
    descriptors: usize,
    resident: u64,
}

impl Usage {
    fn now() -> Usage {
        let now = ProcessUsage::now();
        Usage {
            threads: now.threads,
            descriptors: now.descriptors,
            resident: now.resident,
        }
    }

    /// Waits (a hang guard, not a measure of time) until threads,
    /// descriptors and resident memory are back near `self`: a few threads
    /// and descriptors more (the runtime's lazily started services), the
    /// engine's worker pool within its bound, and at most the hostile
    /// provider's memory cap (its live instance keeps the memory it grew)
    /// plus 64 MiB of the host's own.
    fn settled_after(&self, arena: &Arena) {
        let memory = arena.limits.memory_bytes as u64 + 64 * 1024 * 1024;
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let now = Usage::now();
            assert!(arena.workers.threads() <= MAX_WORKERS);
            let back = now.threads.saturating_sub(arena.workers.threads()) <= self.threads + 4
                && now.descriptors <= self.descriptors + 8
                && now.resident <= self.resident + memory;
            if back {
                return;
            }
            assert!(
                Instant::now() < until,
                "the host did not settle: before {self:?}, after {now:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A hang guard: aborts the test process if it is not dropped within a
/// minute (a host thread stuck in an open would otherwise hang the suite
/// forever; a deadline inside the host cannot stop host code).
struct Watchdog {
    done: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn watchdog(what: &'static str) -> Watchdog {
    let (done, rx) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            rx.recv_timeout(Duration::from_secs(60))
        {
            eprintln!("{what} did not return within a minute");
            std::process::abort();
        }
    });
    Watchdog {
        done: Some(done),
        thread: Some(thread),
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The hostile provider's own notes (what its attack saw), by prefix.
fn noted<'c>(catalog: &'c Catalog, prefix: &str) -> &'c str {
    catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("hostile") && d.message.starts_with(prefix))
        .map(|d| d.message.as_str())
        .unwrap_or_else(|| panic!("no note {prefix:?}: {:?}", catalog.diagnostics))
}

/// The checks every hostile case shares.
fn survived(catalog: &Catalog, kept_steady: bool) {
    assert_eq!(
        catalog.get("good").and_then(|s| s.description()),
        Some("Still fine"),
        "the other provider still answers"
    );
    assert_eq!(
        catalog.get("steady").is_some(),
        kept_steady,
        "the last complete view: {catalog:?}"
    );
}

/// How many of the hostile provider's entries the catalog names as refused.
fn refused_entries(catalog: &Catalog) -> usize {
    catalog
        .diagnostics
        .iter()
        .filter(|d| d.source.as_deref() == Some("hostile"))
        .filter(|d| d.message.contains("skill entry rejected"))
        .count()
}

fn named<'c>(catalog: &'c Catalog, cause: &str) -> &'c Diagnostic {
    catalog
        .diagnostics
        .iter()
        .find(|d| {
            d.source.as_deref() == Some("hostile")
                && d.message.contains("hostile")
                && d.message.contains(cause)
        })
        .unwrap_or_else(|| {
            panic!(
                "no diagnostic naming the provider and {cause:?}: {:?}",
                catalog.diagnostics
            )
        })
}

fn fault_kind(catalog: &Catalog) -> Option<&str> {
    catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("hostile") && d.message.contains("failed"))
        .and_then(|d| d.field.as_deref())
}
