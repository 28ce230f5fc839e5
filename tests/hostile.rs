//! Hostile providers cannot hurt the host. Each test runs the
//! hostile guest (`tests/guests/hostile`) beside a well-behaved local
//! provider: the host survives, the other provider still answers correctly,
//! the bad provider's last complete view is kept where it had one, and a
//! diagnostic names the provider and the cause.

//!
//! The tests run one at a time (see [`SERIAL`]): each compares the
//! process's threads, descriptors and resident memory after the attack with
//! what they were before it.

use skillhost::provider::ChangeKind;
use skillhost::sandbox::Limits;
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
    /// and descriptors more (the runtime's lazily started workers), and at
    /// most the hostile provider's memory cap (its live instance keeps the
    /// memory it grew) plus 64 MiB of the host's own.
    fn settled_after(&self, arena: &Arena) {
        let memory = arena.limits.memory_bytes as u64 + 64 * 1024 * 1024;
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let now = Usage::now();
            let back = now.threads <= self.threads + 4
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

#[test]
fn a_snapshot_that_loops_forever_is_stopped_and_the_last_view_kept() {
    let arena = arena("loop", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert!(!catalog.complete);
    assert_eq!(fault_kind(&catalog), Some("deadline"));
    named(&catalog, "deadline");
}

#[test]
fn every_other_export_that_loops_is_stopped_too() {
    for export in [
        "load",
        "list-resources",
        "read-resource",
        "on-change",
        "observe",
    ] {
        let arena = arena("loop", export, false, limits());
        arena.honest();
        arena.arm();
        let error = match export {
            "load" => arena.registry.load("steady").err(),
            "list-resources" => arena.registry.list_resources("steady").err(),
            "read-resource" => arena.registry.read_resource("steady", "x.md").err(),
            "on-change" => arena
                .hostile
                .on_change(&[(
                    arena.hostile_root.path().join("x"),
                    skillhost::provider::ChangeKind::Modified,
                )])
                .err(),
            _ => arena
                .hostile
                .observe(&[arena.hostile_root.path().join("x")])
                .err(),
        };
        let error = error.unwrap_or_else(|| panic!("{export}: the loop was not stopped"));
        assert!(error.to_string().contains("deadline"), "{export}: {error}");
        let catalog = arena.registry.snapshot();
        survived(&catalog, true);
        named(&catalog, "deadline");
    }
}

#[test]
fn a_provider_that_loops_in_init_never_starts_and_hurts_no_one() {
    let arena = arena("loop", "init", true, limits());
    let catalog = arena.registry.snapshot();
    survived(&catalog, false);
    assert!(!catalog.complete);
    named(&catalog, "deadline");
}

#[test]
fn a_trap_in_init_is_reported_with_its_message() {
    let arena = arena("trap", "init", true, limits());
    let catalog = arena.registry.snapshot();
    survived(&catalog, false);
    named(&catalog, "hostile provider traps in init");
}

#[test]
fn a_memory_bomb_hits_the_cap() {
    let arena = arena("memory", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(fault_kind(&catalog), Some("memory"));
    named(&catalog, "memory");
}

#[test]
fn a_memory_a_provider_filled_comes_back_wiped_to_the_next_instance() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let runtime = runtime();
    let root = tree(&[("inside.txt", b"x")]);
    // 20 MiB of ones: past the 16 MiB a kept memory holds in RAM, so both
    // the part zeroed in place and the part handed back are read again.
    let size = 20usize << 20;
    let run = |attack: &str| {
        let provider = provider_of(
            &runtime,
            "hostile",
            runtime.load_component(HOSTILE_GUEST).unwrap(),
            vec![root.path().to_path_buf()],
            &[("attack", attack), ("size", &size.to_string())],
            patient(),
        );
        let registry = Registry::new();
        registry.add(provider).unwrap();
        registry.snapshot()
    };
    let before = runtime.engine().memories_reused();
    let filled = run("leak");
    assert!(filled.get("steady").is_some(), "{:?}", filled.diagnostics);
    let peeked = run("peek");
    if cfg!(target_os = "linux") {
        assert!(
            runtime.engine().memories_reused() > before,
            "the second instance ran in the memory the first one left"
        );
    }
    assert_eq!(
        noted(&peeked, "peek:"),
        format!("peek: 0 of {size} grown bytes not zero")
    );
}

#[test]
fn deep_recursion_overflows_only_the_guests_stack() {
    let arena = arena("recursion", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(fault_kind(&catalog), Some("stack"));
}

#[test]
fn a_million_skills_are_refused() {
    let arena = arena(
        "many-skills",
        "snapshot",
        false,
        Limits {
            deadline: Duration::from_secs(20),
            memory_bytes: 512 * 1024 * 1024,
            ..limits()
        },
    );
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    assert_eq!(
        catalog.get("good").and_then(|s| s.description()),
        Some("Still fine")
    );
    let capped = catalog
        .skills
        .iter()
        .filter(|s| s.source == "hostile")
        .count();
    assert!(
        capped <= 10_000,
        "at most the cap of skills is kept: {capped}"
    );
    let diagnostic = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("hostile"))
        .expect("a diagnostic about the flood of skills");
    // Whichever limit stops it first: the memory cap, wasmtime's cap on
    // data crossing one call, or the host's cap on skills.
    assert!(
        diagnostic.message.contains("more than 10000 skills")
            || matches!(diagnostic.field.as_deref(), Some("memory" | "size")),
        "{diagnostic}"
    );
}

#[test]
fn a_hundred_mebibyte_description_is_refused_and_the_rest_kept() {
    let arena = arena(
        "huge-description",
        "snapshot",
        false,
        Limits {
            memory_bytes: 512 * 1024 * 1024,
            deadline: Duration::from_secs(20),
            ..limits()
        },
    );
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert!(catalog.get("huge").is_none());
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| {
            d.message.contains("frontmatter JSON is 1048576") && d.message.contains("over the")
        })
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert_eq!(d.source.as_deref(), Some("hostile"));
}

#[test]
fn unsafe_names_and_escaping_paths_are_refused_one_by_one() {
    let arena = arena("bad-names", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert!(
        catalog.complete,
        "refusing entries is not a failure of the provider"
    );
    let rejected: Vec<&Diagnostic> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("skill entry rejected"))
        .collect();
    assert_eq!(rejected.len(), 7, "{rejected:?}");
    assert!(
        rejected
            .iter()
            .any(|d| d.message.contains("path separator"))
    );
    assert!(
        rejected
            .iter()
            .any(|d| d.message.contains("outside the provider's grants"))
    );
    assert_eq!(
        catalog
            .skills
            .iter()
            .filter(|s| s.source == "hostile")
            .count(),
        1
    );
}

#[test]
fn an_invalidation_storm_stops_the_provider() {
    let arena = arena("storm", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(fault_kind(&catalog), Some("flood"));
    named(&catalog, "invalidate-provider");
}

#[test]
fn a_faulting_provider_is_restarted_with_growing_backoff() {
    let arena = arena(
        "trap",
        "snapshot",
        false,
        Limits {
            restart_initial: Duration::from_millis(200),
            ..limits()
        },
    );
    arena.honest();
    arena.arm();
    let first = arena.attacked();
    named(&first, "traps in snapshot");
    let instances = arena.hostile.stats().instantiations();
    // Asked again at once: still waiting, no new instance.
    let waiting = arena.registry.snapshot();
    assert!(
        waiting
            .diagnostics
            .iter()
            .any(|d| d.message.contains("restarting in"))
    );
    assert_eq!(
        arena.hostile.stats().instantiations(),
        instances,
        "no restart during the backoff"
    );
    std::fs::remove_file(arena.hostile_root.path().join(FLAG)).unwrap();
    std::thread::sleep(Duration::from_millis(250));
    let recovered = arena.registry.snapshot();
    assert!(recovered.complete, "{:?}", recovered.diagnostics);
    assert_eq!(arena.hostile.stats().instantiations(), instances + 1);
}

#[test]
fn a_watch_request_for_the_whole_filesystem_is_refused_and_noted() {
    let arena = arena("watch-everything", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    let d = named(&catalog, "asked to watch \"/\": refused");
    assert_eq!(d.field.as_deref(), Some("capability"));
    assert!(
        arena
            .hostile
            .watches()
            .keys()
            .all(|path| path.starts_with("/skills/0"))
    );
}

#[test]
fn reads_outside_the_grant_fail_through_wasi_and_through_files() {
    let arena = arena("read-outside", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps if any read outside its grant succeeded.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
}

#[test]
fn a_flood_of_read_ahead_announcements_reads_nothing_outside_and_ends_with_the_call() {
    // Lifting 800,000 paths costs the host real time: a deadline that is
    // not the point of this test.
    let limits = Limits {
        deadline: Duration::from_secs(10),
        ..limits()
    };
    let arena = arena("prefetch-flood", "snapshot", false, limits);
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps if a read outside its grant succeeded. Only the first
    // few of the 50 announcements of 16,002 paths start readers.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    // What was read ahead is dropped with the call: its readers stop.
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while readers_alive() > 0 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(readers_alive(), 0, "read-ahead threads outlived the call");
    let again = arena.attacked();
    assert!(again.complete, "{:?}", again.diagnostics);
}

/// Read-ahead threads alive in this process (Linux names them in /proc).
fn readers_alive() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|comm| comm.starts_with("skillhost-pref"))
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn sockets_and_ungranted_origins_are_refused_and_warned_about() {
    for (attack, noted) in [
        ("sockets", "tried to open a TCP socket"),
        (
            "http",
            "made an HTTP request to http://127.0.0.1:9: refused, that origin is not granted",
        ),
    ] {
        let arena = arena(attack, "snapshot", false, limits());
        arena.honest();
        arena.arm();
        let catalog = arena.attacked();
        survived(&catalog, true);
        let d = named(&catalog, noted);
        assert_eq!(d.field.as_deref(), Some("capability"), "{attack}");
    }
}

#[test]
fn an_empty_environment_and_a_discarded_stdout_are_noted_with_a_count_not_warned_about() {
    for (attack, kind, noted) in [
        (
            "environment",
            skillhost::sandbox::Refused::Environment,
            "read its environment variables",
        ),
        (
            "stdout",
            skillhost::sandbox::Refused::Stdout,
            "wrote to stdout",
        ),
    ] {
        let arena = arena(attack, "snapshot", false, limits());
        arena.honest();
        arena.arm();
        let catalog = arena.attacked();
        survived(&catalog, true);
        assert!(
            !catalog
                .diagnostics
                .iter()
                .any(|d| d.message.contains(noted)),
            "{attack}: the contract working is no warning: {:?}",
            catalog.diagnostics
        );
        let counted = arena.hostile.refusal_counts();
        let refusal = counted
            .iter()
            .find(|r| r.kind == kind)
            .unwrap_or_else(|| panic!("{attack}: {counted:?}"));
        assert!(refusal.message.contains(noted), "{attack}: {refusal:?}");
        assert!(refusal.count >= 1);
    }
}

#[test]
fn entries_sent_ahead_past_the_cap_on_skills_are_dropped_and_refused_ones_named() {
    let arena = arena("emit-flood", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    let ahead = catalog
        .skills
        .iter()
        .filter(|s| s.source == "hostile" && s.name().starts_with('e'))
        .count();
    // The first 10,000 sent are kept and a tenth of them refused, which
    // leaves room for the answer's own `steady` after them.
    assert_eq!(ahead, 9_000, "the cap of skills, less the refused");
    assert!(catalog.get("steady").is_some(), "the answer still counts");
    named(
        &catalog,
        "returned more than 10000 skills; 10000 were dropped",
    );
    assert_eq!(
        refused_entries(&catalog),
        1_000,
        "every refused entry kept is named"
    );
}

#[test]
fn entries_sent_ahead_outside_a_snapshot_are_dropped_and_noted() {
    for export in ["load", "on-change"] {
        let arena = arena("emit-flood", export, false, limits());
        arena.honest();
        arena.arm();
        if export == "load" {
            let err = arena.registry.load("steady");
            assert!(err.is_ok(), "{export}: the call itself goes on: {err:?}");
        } else {
            let flag = arena.hostile_root.path().join(FLAG);
            arena
                .hostile
                .on_change(&[(flag, ChangeKind::Created)])
                .unwrap();
        }
        let catalog = arena.attacked();
        survived(&catalog, true);
        let d = named(
            &catalog,
            "sent skill entries (emit-skills) outside a snapshot call: they were dropped",
        );
        assert_eq!(d.field.as_deref(), Some("capability"), "{export}");
        assert!(
            !catalog.skills.iter().any(|s| s.name().starts_with('e')),
            "{export}: nothing sent outside a snapshot is listed"
        );
    }
}

/// Waits until no read-ahead thread is alive; fails if one outlives its call.
fn no_reader_left() {
    let until = Instant::now() + Duration::from_secs(10);
    while readers_alive() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(readers_alive(), 0, "read-ahead threads outlived the call");
}

#[test]
fn a_watch_flood_is_refused_past_each_bound_and_its_depth_clamped() {
    let arena = arena("watch-flood", "snapshot", false, limits());
    arena.registry.watch(Default::default()).unwrap();
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps unless each request over a bound was refused.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    named(&catalog, "over the limit of 4096 watched paths");
    named(&catalog, "over the limit of 1048576 bytes of watched paths");
    named(&catalog, "the path is 5010 bytes, over the limit of 4096");
    assert_eq!(
        noted(&catalog, "watch-flood:"),
        "watch-flood: 904 of 5000 refused"
    );
    let watches = arena.hostile.watches();
    assert!(!watches.is_empty() && watches.len() <= 4096);
    assert!(watches.keys().all(|p| p.len() <= 4096));
    assert!(watches.keys().map(String::len).sum::<usize>() <= 1024 * 1024);
    assert!(
        watches.values().all(|w| w.depth == 2),
        "depth 99 is clamped to 2"
    );
    // The watcher still serves the good provider.
    arena.good_provider_changes("added");
    write(
        arena.good_root.path(),
        "watched/SKILL.md",
        skill_md("watched", "Seen by the watcher").as_bytes(),
    );
    let until = Instant::now() + Duration::from_secs(30);
    let mut catalog = arena.registry.snapshot();
    while catalog.get("watched").is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        catalog = arena.registry.snapshot();
    }
    assert!(catalog.get("watched").is_some(), "{catalog:?}");
    assert!(catalog.get("added").is_some());
    survived(&catalog, true);
    before.settled_after(&arena);
}

#[test]
fn a_fifo_opened_through_wasi_is_refused_at_once_and_the_call_returns() {
    let arena = arena("fifo-wasi", "snapshot", false, limits());
    mkfifo(&arena.hostile_root.path().join("fifo"));
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a snapshot opening a FIFO through WASI");
        arena.attacked()
    };
    // Within its deadline (a deadline fault would make it incomplete), and
    // the guest traps if the open succeeded.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    named(&catalog, "which is not a regular file or folder: refused");
    noted(&catalog, "fifo-wasi: ");
    before.settled_after(&arena);
}

#[test]
fn a_fifo_read_through_files_and_read_ahead_is_refused_and_no_reader_is_left() {
    let arena = arena("fifo-files", "snapshot", false, limits());
    mkfifo(&arena.hostile_root.path().join("fifo"));
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a snapshot reading a FIFO through files");
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    for note in ["fifo-files read: ", "fifo-files prefetch: "] {
        let seen = noted(&catalog, note);
        assert!(seen.contains("not a regular file"), "{seen}");
    }
    no_reader_left();
    before.settled_after(&arena);
}

/// A guest capped at 32 MiB names one 8 MiB file 64 times in one
/// `read-files` call: the host reads only what the guest could still take
/// (its cap less what its memory holds), and the rest answers `transient`,
/// so the host never holds 512 MiB for an answer the guest could not lower.
#[test]
fn a_read_naming_more_than_the_guest_can_receive_is_cut_at_its_memory() {
    const BIG: usize = 8 * 1024 * 1024;
    let capped = Limits {
        memory_bytes: 32 * 1024 * 1024,
        ..patient()
    };
    let size = BIG.to_string();
    let arena = arena_with(
        "read-amplify",
        "snapshot",
        false,
        capped,
        &[("size", &size), ("count", "64")],
    );
    write(arena.hostile_root.path(), "big.bin", &vec![7u8; BIG]);
    arena.honest();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a read naming one large file 64 times");
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    let seen = noted(&catalog, "read-amplify: ");
    let counts: Vec<usize> = seen
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let [whole, transient, bytes] = counts[..] else {
        panic!("unexpected note {seen:?}");
    };
    assert!(
        (1..=3).contains(&whole),
        "only what 32 MiB can hold comes whole: {seen}"
    );
    assert_eq!(whole + transient, 64, "the rest answers transient: {seen}");
    assert_eq!(bytes, whole * BIG, "{seen}");
}

#[test]
fn descriptors_past_the_bound_stop_the_provider_and_are_all_closed() {
    let arena = arena("descriptors", "snapshot", false, patient());
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(
        fault_kind(&catalog),
        Some("limit"),
        "{:?}",
        catalog.diagnostics
    );
    named(&catalog, "held more than 1024 open resources");
    // Its instance went with the fault, and every descriptor it held.
    before.settled_after(&arena);
    // Once it behaves, it is started again and answers.
    std::fs::remove_file(arena.hostile_root.path().join(FLAG)).unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let mut catalog = arena.attacked();
    while !catalog.complete && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        catalog = arena.attacked();
    }
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
}

/// Everything the `tracing` events of this thread print, while it lives.
#[test]
fn a_log_flood_is_rate_limited_and_cleaned_of_control_characters() {
    use tracing_subscriber::util::SubscriberInitExt;
    let arena = arena("log-flood", "snapshot", false, patient());
    arena.honest();
    let before = Usage::now();
    let captured = skillhost_tests::Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    arena.arm();
    let catalog = {
        // The provider's calls run on this thread.
        let _default = subscriber.set_default();
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    let text = captured.text();
    // Cleaned: no escape, no bidi control, no line of its own making.
    for forbidden in ['\u{1b}', '\u{202E}', '\u{2066}', '\r'] {
        assert!(!text.contains(forbidden), "{forbidden:?} reached the log");
    }
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("forged")),
        "a provider forged a log line"
    );
    let written: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("hostile flood ") && !l.contains("hostile flood over"))
        .collect();
    assert!(
        written
            .iter()
            .all(|l| l.contains("provider=\"hostile\"") && l.contains("forged: line")),
        "{written:?}"
    );
    // At most 50 a second were written; every other one was counted as
    // dropped and reported (the last report when the next second began).
    let dropped: u64 = text
        .lines()
        .filter_map(|l| {
            let (count, _) = l.split_once(" log messages dropped: more than 50 a second")?;
            count.rsplit(' ').next()?.parse::<u64>().ok()
        })
        .sum();
    assert!(dropped > 0, "nothing was dropped: {} lines", written.len());
    // The last message, a second later, is written and reports the rest.
    assert!(text.contains("hostile flood over"));
    assert_eq!(
        written.len() as u64 + dropped,
        100_000,
        "every message was either written or counted as dropped"
    );
    assert!(written.len() < 10_000, "{} written", written.len());
    before.settled_after(&arena);
}

#[test]
fn a_flood_of_refused_entries_and_diagnostics_is_capped() {
    let arena = arena(
        "rejected-flood",
        "snapshot",
        false,
        Limits {
            memory_bytes: 256 * 1024 * 1024,
            ..patient()
        },
    );
    arena.honest();
    let before = Usage::now();
    arena.arm();
    for _ in 0..2 {
        let catalog = arena.attacked();
        assert!(catalog.complete, "refused entries are not a failure");
        survived(&catalog, true);
        assert_eq!(
            refused_entries(&catalog),
            1000,
            "the refused entries the host remembers"
        );
        named(
            &catalog,
            "29000 more entries were refused beyond the 1000 the host keeps diagnostics for",
        );
        let own = catalog
            .diagnostics
            .iter()
            .filter(|d| d.message.starts_with("hostile diagnostic "))
            .count();
        assert_eq!(own, 1000, "the provider's own diagnostics kept");
        named(
            &catalog,
            "19000 more diagnostics dropped, over the 1000 kept",
        );
        assert!(
            catalog.diagnostics.len() < 2100,
            "{}",
            catalog.diagnostics.len()
        );
    }
    before.settled_after(&arena);
}

#[test]
fn a_resource_over_sixteen_mebibytes_is_refused_and_one_at_the_limit_is_read() {
    {
        let at_limit = arena_with(
            "huge-resource",
            "read-resource",
            false,
            patient(),
            &[("size", "16777216")],
        );
        at_limit.honest();
        at_limit.arm();
        let bytes = at_limit.registry.read_resource("steady", "big.md").unwrap();
        assert_eq!(bytes.len(), 16 * 1024 * 1024);
    }
    let arena = arena_with(
        "huge-resource",
        "read-resource",
        false,
        patient(),
        &[("size", "16777217")],
    );
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let error = arena
        .registry
        .read_resource("steady", "big.md")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("provider hostile")
            && error.contains("16777217 bytes, over the limit of 16777216 per file"),
        "{error}"
    );
    let catalog = arena.attacked();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    assert!(arena.registry.load("steady").is_ok());
    before.settled_after(&arena);
}

#[test]
fn more_than_512_files_or_16_mebibytes_in_one_skill_are_refused() {
    let listed = |count: &str, size: &str| {
        let arena = arena_with(
            "many-resources",
            "list-resources",
            false,
            patient(),
            &[("count", count), ("size", size)],
        );
        arena.honest();
        let before = Usage::now();
        arena.arm();
        let listed = arena
            .registry
            .list_resources("steady")
            .map(|list| list.len())
            .map_err(|e| e.to_string());
        survived(&arena.attacked(), true);
        before.settled_after(&arena);
        listed
    };
    assert_eq!(listed("512", "1"), Ok(512), "the limit itself is allowed");
    let error = listed("513", "1").unwrap_err();
    assert!(
        error.contains("provider hostile")
            && error.contains("listed 513 files, over the limit of 512 per skill"),
        "{error}"
    );
    let error = listed("2", "9000000").unwrap_err();
    assert!(
        error.contains("provider hostile")
            && error.contains("its files add up to 18000000 bytes, over the limit of 16777216"),
        "{error}"
    );
}

#[test]
fn a_provider_invalidating_itself_in_every_snapshot_is_used_after_bounded_retries() {
    let arena = arena("self-invalidate", "snapshot", false, limits());
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let asked = arena.hostile.stats().snapshots();
    let catalog = arena.attacked();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    assert!(
        catalog.diagnostics.iter().any(|d| d
            .message
            .contains("changed during each of 4 discovery attempts")),
        "{:?}",
        catalog.diagnostics
    );
    assert_eq!(
        arena.hostile.stats().snapshots() - asked,
        4,
        "asked once per attempt, and no more"
    );
    // Another provider's change still reaches the catalog.
    arena.good_provider_changes("added");
    let catalog = arena.registry.snapshot();
    assert_eq!(
        catalog.get("added").and_then(|s| s.description()),
        Some("Added during the attack")
    );
    survived(&catalog, true);
    before.settled_after(&arena);
}

#[test]
fn an_always_incomplete_provider_keeps_its_last_view_and_cannot_freeze_the_others() {
    let arena = arena("incomplete", "snapshot", false, limits());
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = arena.attacked();
    assert!(!catalog.complete);
    assert!(!catalog.held_back, "it gave a complete view before");
    survived(&catalog, true);
    let stale = named(&catalog, "is incomplete: its last complete view is shown");
    assert_eq!(stale.field.as_deref(), Some("stale"));
    arena.good_provider_changes("added");
    let catalog = arena.attacked();
    assert_eq!(
        catalog.get("added").and_then(|s| s.description()),
        Some("Added during the attack")
    );
    assert!(!catalog.held_back);
    survived(&catalog, true);
    named(&catalog, "is incomplete: its last complete view is shown");
    before.settled_after(&arena);
}

#[test]
fn a_provider_never_complete_holds_publication_back_only_for_its_grace() {
    let grace = Duration::from_secs(2);
    let arena = arena(
        "incomplete",
        "snapshot",
        true,
        Limits {
            startup_grace: grace,
            ..limits()
        },
    );
    let started = Instant::now();
    let first = arena.registry.snapshot();
    let within_grace = started.elapsed() < grace;
    survived(&first, false);
    assert!(!first.complete);
    if within_grace {
        assert!(first.held_back, "{:?}", first.diagnostics);
    }
    // Past the grace it is reported failed and the others publish without it.
    let until = Instant::now() + Duration::from_secs(60);
    let mut catalog = first;
    while catalog.held_back && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        catalog = arena.attacked();
    }
    assert!(!catalog.held_back, "held back for good: {catalog:?}");
    assert!(!catalog.complete);
    survived(&catalog, false);
    let failed = named(&catalog, "has given no complete view in");
    assert_eq!(failed.field.as_deref(), Some("failed"));
    // The others' changes are published.
    arena.good_provider_changes("added");
    let catalog = arena.attacked();
    assert!(catalog.get("added").is_some() && !catalog.held_back);
}
