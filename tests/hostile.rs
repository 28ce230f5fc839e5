//! Hostile providers cannot hurt the host. Each test runs the
//! hostile guest (`tests/guests/hostile`) beside a well-behaved local
//! provider: the host survives, the other provider still answers correctly,
//! the bad provider's last complete view is kept where it had one, and a
//! diagnostic names the provider and the cause.

use skillhost::sandbox::Limits;
use skillhost::{Catalog, Diagnostic, Provider, Registry};
use skillhost_tests::{HOSTILE_GUEST, provider_of, runtime, skill_md, tree, write};
use std::sync::Arc;
use std::time::Duration;

const FLAG: &str = "attack-now";

struct Arena {
    _good_root: tempfile::TempDir,
    hostile_root: tempfile::TempDir,
    registry: Registry,
    hostile: Arc<Provider>,
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
    let good_root = tree(&[("good/SKILL.md", skill_md("good", "Still fine").as_bytes())]);
    let hostile_root = tree(&[("inside.txt", b"x")]);
    if armed_from_start {
        write(hostile_root.path(), FLAG, b"");
    }
    let runtime = runtime();
    let hostile = provider_of(
        &runtime,
        "hostile",
        runtime.load_component(HOSTILE_GUEST).unwrap(),
        vec![hostile_root.path().to_path_buf()],
        &[("attack", attack), ("in", export), ("when", FLAG)],
        limits,
    );
    let registry = Registry::new();
    registry.add(hostile.clone()).unwrap();
    registry
        .add(runtime.local_provider(good_root.path()).unwrap())
        .unwrap();
    Arena {
        _good_root: good_root,
        hostile_root,
        registry,
        hostile,
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
        .find(|d| d.message.contains("description is 104857600 bytes"))
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
fn sockets_environment_and_stdout_are_refused_and_noted() {
    for (attack, noted) in [
        ("sockets", "tried to open a TCP socket"),
        ("environment", "read its environment variables"),
        ("stdout", "wrote to stdout"),
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
