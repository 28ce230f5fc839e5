//! Hostile providers that spend time: loops in every export and in `init`,
//! traps, invalidation storms, restarts with backoff, and providers that
//! are never complete.

use super::*;

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
