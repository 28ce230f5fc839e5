//! Archive and restore moving real folders while a real watcher keeps the
//! catalog live: the catalog follows through the normal watcher path.

use super::store;
use skillhost::registry::watch::WatchOptions;
use skillhost::{Catalog, Registry, Scope};
use skillhost_tests::{runtime, skill_md, write};
use skillhost_usage::clock::days;
use skillhost_usage::curator::{self, ARCHIVE_DIR, Archivable, State};
use skillhost_usage::{Error, UsageStore};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(10);

fn until(registry: &Registry, changes: &Receiver<()>, what: &str, done: impl Fn(&Catalog) -> bool) {
    let started = Instant::now();
    loop {
        let catalog = registry.snapshot();
        if done(&catalog) {
            return;
        }
        let left = PATIENCE.saturating_sub(started.elapsed());
        assert!(
            !left.is_zero(),
            "{what}: not seen within {PATIENCE:?}: {catalog:?}"
        );
        let _ = changes.recv_timeout(left.min(Duration::from_millis(200)));
    }
}

fn review(store: &UsageStore, registry: &Registry) -> curator::Report {
    curator::review(
        store,
        &registry.snapshot(),
        &curator::writable_roots(registry),
    )
    .unwrap()
}

#[test]
fn archive_and_restore_round_trip_with_a_live_watcher() {
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = std::fs::canonicalize(dir.path()).unwrap().join("skills");
    write(
        &root,
        "old/SKILL.md",
        skill_md("old", "Nobody uses this").as_bytes(),
    );
    write(&root, "old/references/notes.md", b"kept with it");
    write(
        &root,
        "flat.md",
        skill_md("flat", "A flat skill").as_bytes(),
    );
    write(
        &root,
        "kept/SKILL.md",
        b"---\nname: kept\ndescription: Pinned\npinned: true\n---\nbody\n",
    );
    write(
        &root,
        "busy/SKILL.md",
        skill_md("busy", "Used daily").as_bytes(),
    );
    let runtime = runtime();
    let registry = Registry::new();
    registry
        .add(runtime.local_provider_in(&root, Scope::User).unwrap())
        .unwrap();
    registry.add(runtime.bundled_provider().unwrap()).unwrap();
    registry.watch(WatchOptions::default()).unwrap();
    let (tx, changes) = mpsc::channel();
    let _subscription = registry.subscribe(move |change| {
        // Only what can change the catalog; file deliveries are not.
        if matches!(change, skillhost::registry::Change::Catalog { .. }) {
            let _ = tx.send(());
        }
    });

    let state = tempfile::tempdir().unwrap();
    let (store, clock) = store(state.path());
    review(&store, &registry);
    clock.advance(days(100.0));
    store
        .record_invocation(&skillhost_usage::store::InvocationRecord {
            skill: "busy",
            source: "local",
            caller: "user",
            session: "s",
            outcome: skillhost_usage::store::Outcome::Inline,
        })
        .unwrap();
    let report = review(&store, &registry);
    let state_of = |n: &str| report.skills.iter().find(|a| a.name == n).unwrap().state;
    assert_eq!(state_of("old"), State::Deprecated);
    assert_eq!(state_of("kept"), State::Active);
    assert_eq!(state_of("busy"), State::Active);

    let archived = curator::archive(&report);
    let mut moved: Vec<&str> = archived.moved.iter().map(|m| m.name.as_str()).collect();
    moved.sort();
    assert_eq!(moved, ["flat", "old"]);
    // Bundled skills are candidates too, but never moved.
    assert!(!archived.skipped.is_empty());
    for (name, reason) in &archived.skipped {
        let skill = report.skills.iter().find(|a| &a.name == name).unwrap();
        assert_eq!(skill.scope, Scope::Bundled, "{name}: {reason}");
        assert!(matches!(skill.archivable, Archivable::No(_)));
    }
    until(&registry, &changes, "old and flat leave the catalog", |c| {
        c.get("old").is_none() && c.get("flat").is_none()
    });
    let catalog = registry.snapshot();
    assert!(catalog.get("kept").is_some() && catalog.get("busy").is_some());
    let archive = root.join(ARCHIVE_DIR);
    assert_eq!(
        std::fs::read(archive.join("old/references/notes.md")).unwrap(),
        b"kept with it"
    );
    assert!(archive.join("flat.md").is_file());

    let roots = curator::writable_roots(&registry);
    let restored = curator::restore(&store, &roots, "old").unwrap();
    assert_eq!(restored.to, root.join("old"));
    until(&registry, &changes, "old comes back", |c| {
        c.get("old").is_some()
    });
    assert!(registry.snapshot().get("flat").is_none());
    // A restored skill starts a new grace period instead of being archived again.
    let report = review(&store, &registry);
    let old = report.skills.iter().find(|a| a.name == "old").unwrap();
    assert_eq!(old.state, State::Active);
    assert!(curator::archive(&report).moved.is_empty());

    // Restoring over a skill that exists again is refused; nothing moves.
    write(
        &root,
        "flat.md",
        skill_md("flat", "A new flat skill").as_bytes(),
    );
    let err = curator::restore(&store, &roots, "flat").unwrap_err();
    assert!(matches!(err, Error::Exists { .. }), "{err:?}");
    assert!(archive.join("flat.md").is_file());
    let err = curator::restore(&store, &roots, "nothing").unwrap_err();
    assert!(err.to_string().contains(archive.to_str().unwrap()), "{err}");
}
