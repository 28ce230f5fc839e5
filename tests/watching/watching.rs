//! Live catalog with real files and the real OS watcher: every change that
//! alters the catalog reaches it (created, edited, renamed, deleted skills;
//! roots that appear, vanish and come back), and nothing else does.

use skillhost::Scope;
use skillhost::registry::watch::{WatchMode, WatchOptions};
use skillhost::{Catalog, Registry};
use skillhost_tests::{runtime, skill_md, write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

mod deliveries;

const PATIENCE: Duration = Duration::from_secs(10);

struct Live {
    registry: Registry,
    changes: Receiver<()>,
    _subscription: skillhost::registry::Subscription,
}

fn live(roots: &[PathBuf], options: WatchOptions) -> Live {
    live_in(
        roots.iter().map(|r| (r.clone(), Scope::User)).collect(),
        options,
    )
}

fn live_in(roots: Vec<(PathBuf, Scope)>, options: WatchOptions) -> Live {
    let live = unwatched(roots);
    live.registry.watch(options).unwrap();
    live.registry.snapshot();
    live
}

/// The registry over `roots`, followed by its listeners but not watching
/// yet, and not yet asked for a snapshot.
fn unwatched(roots: Vec<(PathBuf, Scope)>) -> Live {
    let runtime = runtime();
    let registry = Registry::new();
    for (root, scope) in roots {
        registry
            .add(runtime.local_provider_in(root, scope).unwrap())
            .unwrap();
    }
    let (tx, rx) = mpsc::channel();
    let subscription = registry.subscribe(move |change| {
        // Only what can change the catalog; file deliveries are not.
        if matches!(change, skillhost::registry::Change::Catalog { .. }) {
            let _ = tx.send(());
        }
    });
    Live {
        registry,
        changes: rx,
        _subscription: subscription,
    }
}

impl Live {
    /// Waits until the catalog satisfies `done` (panics after PATIENCE).
    fn until(&self, what: &str, done: impl Fn(&Catalog) -> bool) -> Arc<Catalog> {
        let started = Instant::now();
        loop {
            let catalog = self.registry.snapshot();
            if done(&catalog) {
                return catalog;
            }
            let left = PATIENCE.saturating_sub(started.elapsed());
            assert!(
                !left.is_zero(),
                "{what}: not seen within {PATIENCE:?}; last catalog: {catalog:?}"
            );
            let _ = self
                .changes
                .recv_timeout(left.min(Duration::from_millis(200)));
        }
    }

    fn description(&self, name: &str) -> Option<String> {
        self.registry
            .snapshot()
            .get(name)
            .and_then(|s| s.description().map(str::to_string))
    }
}

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("skills");
    std::fs::create_dir_all(&root).unwrap();
    (dir, root)
}

fn named(name: &'static str) -> impl Fn(&Catalog) -> bool {
    move |c| c.get(name).is_some()
}

fn gone(name: &'static str) -> impl Fn(&Catalog) -> bool {
    move |c| c.get(name).is_none()
}

#[test]
fn bundle_skills_created_removed_and_renamed_reach_the_catalog() {
    let (_dir, root) = root();
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    std::fs::create_dir(root.join("fresh")).unwrap();
    std::fs::write(
        root.join("fresh/SKILL.md"),
        "---\ndescription: Made after start\n---\nbody\n",
    )
    .unwrap();
    live.until("a new bundle", named("fresh"));
    std::fs::rename(root.join("fresh"), root.join("moved")).unwrap();
    live.until("a renamed bundle", |c| {
        c.get("moved").is_some() && c.get("fresh").is_none()
    });
    std::fs::remove_dir_all(root.join("moved")).unwrap();
    live.until("a removed bundle", gone("moved"));
}

#[test]
fn flat_skills_created_removed_and_renamed_reach_the_catalog() {
    let (_dir, root) = root();
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    std::fs::write(
        root.join("flat.md"),
        "---\ndescription: A flat skill\n---\nbody\n",
    )
    .unwrap();
    live.until("a new flat skill", named("flat"));
    std::fs::rename(root.join("flat.md"), root.join("other.md")).unwrap();
    live.until("a renamed flat skill", |c| {
        c.get("other").is_some() && c.get("flat").is_none()
    });
    std::fs::remove_file(root.join("other.md")).unwrap();
    live.until("a removed flat skill", gone("other"));
    std::fs::write(root.join("README.md"), "# not a skill\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(live.registry.snapshot().skills.is_empty());
}

#[test]
fn a_root_created_deleted_and_recreated_after_start_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    // Three missing segments: watched from the nearest ancestor, one at a time.
    let root = base.join("project/.agents/skills");
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    assert!(live.registry.snapshot().complete);
    write(
        &root,
        "later/SKILL.md",
        skill_md("later", "Appeared after start").as_bytes(),
    );
    live.until("a skill in a root created after start", named("later"));
    std::fs::remove_dir_all(base.join("project")).unwrap();
    live.until("the root deleted", gone("later"));
    write(
        &root,
        "again/SKILL.md",
        skill_md("again", "Root re-created").as_bytes(),
    );
    live.until("a skill in the re-created root", named("again"));
    assert!(live.registry.snapshot().complete);
}

#[test]
fn a_description_change_is_seen_and_a_body_only_edit_is_not() {
    let (_dir, root) = root();
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "Before").as_bytes(),
    );
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    let provider = live.registry.providers()[0].clone();
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "After").as_bytes(),
    );
    live.until("the new description", |c| {
        c.get("notes").and_then(|s| s.description()) == Some("After")
    });
    let generation = provider.signals().generation();
    let watcher = live.registry.watcher().unwrap();
    let delivered = watcher.deliveries(&provider);
    write(
        &root,
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: After\n---\nAn entirely new body.\n",
    );
    let started = Instant::now();
    while watcher.deliveries(&provider) == delivered && started.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        watcher.deliveries(&provider) > delivered,
        "the edit was seen"
    );
    assert_eq!(
        provider.signals().generation(),
        generation,
        "but invalidated nothing"
    );
    assert_eq!(live.description("notes").as_deref(), Some("After"));
    assert_eq!(
        live.registry.load("notes").unwrap().body,
        "An entirely new body.\n"
    );
}

#[test]
fn changes_made_after_the_first_read_and_before_the_watches_are_in_place_are_caught_up() {
    let (_dir, root) = root();
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "Before").as_bytes(),
    );
    write(&root, "kept/SKILL.md", skill_md("kept", "Kept").as_bytes());
    let live = unwatched(vec![(root.clone(), Scope::User)]);
    // The provider reads its root and asks for it to be watched; nothing
    // is watching yet, as in the moment between a cold start's reads and
    // the end of its first call.
    let first = live.registry.snapshot();
    assert_eq!(
        first.get("notes").and_then(|s| s.description()),
        Some("Before")
    );
    // No event will ever report these: they happen before any watch.
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "After").as_bytes(),
    );
    write(
        &root,
        "fresh/SKILL.md",
        skill_md("fresh", "Fresh").as_bytes(),
    );
    std::fs::remove_dir_all(root.join("kept")).unwrap();
    live.registry.watch(WatchOptions::default()).unwrap();
    live.until("the edit, the new skill and the removal", |c| {
        c.get("notes").and_then(|s| s.description()) == Some("After")
            && c.get("fresh").is_some()
            && c.get("kept").is_none()
    });
    // And the watches are in place for what comes next.
    write(
        &root,
        "later/SKILL.md",
        skill_md("later", "Later").as_bytes(),
    );
    live.until("a skill made after the catch-up", named("later"));
}

#[test]
fn the_agents_own_write_is_visible_at_once_without_waiting_for_events() {
    let (_dir, root) = root();
    write(
        &root,
        "mine/SKILL.md",
        skill_md("mine", "Before").as_bytes(),
    );
    let registry = runtime().registry_for_roots(&[&root]).unwrap();
    registry.snapshot();
    write(
        &root,
        "mine/SKILL.md",
        skill_md("mine", "Written by the agent").as_bytes(),
    );
    write(
        &root,
        "new/SKILL.md",
        skill_md("new", "Also the agent").as_bytes(),
    );
    registry
        .observe_paths(&[root.join("mine/SKILL.md"), root.join("new/SKILL.md")])
        .unwrap();
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("mine").and_then(|s| s.description()),
        Some("Written by the agent")
    );
    assert_eq!(
        catalog.get("new").and_then(|s| s.description()),
        Some("Also the agent")
    );
}

#[test]
fn a_symlinked_skill_folder_is_watched_through_its_link() {
    let (_dir, root) = root();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = std::fs::canonicalize(elsewhere.path())
        .unwrap()
        .join("linked");
    write(
        &target,
        "SKILL.md",
        skill_md("linked", "Lives elsewhere").as_bytes(),
    );
    std::os::unix::fs::symlink(&target, root.join("linked")).unwrap();
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    assert_eq!(
        live.description("linked").as_deref(),
        Some("Lives elsewhere")
    );
    write(
        &target,
        "SKILL.md",
        skill_md("linked", "Edited at the target").as_bytes(),
    );
    live.until("an edit behind a symlink", |c| {
        c.get("linked").and_then(|s| s.description()) == Some("Edited at the target")
    });
}

#[test]
fn polling_mode_sees_changes_too() {
    let (_dir, root) = root();
    let options = WatchOptions {
        mode: WatchMode::Poll(Duration::from_millis(50)),
        ..WatchOptions::default()
    };
    let live = live(std::slice::from_ref(&root), options);
    write(
        &root,
        "polled/SKILL.md",
        skill_md("polled", "Found by polling").as_bytes(),
    );
    live.until("a skill found by polling", named("polled"));
    write(
        &root,
        "polled/SKILL.md",
        skill_md("polled", "Changed, polled").as_bytes(),
    );
    live.until("a description found by polling", |c| {
        c.get("polled").and_then(|s| s.description()) == Some("Changed, polled")
    });
    std::fs::remove_dir_all(root.join("polled")).unwrap();
    live.until("a removal found by polling", gone("polled"));
}

#[test]
fn a_burst_of_two_hundred_writes_is_one_invalidation() {
    let (_dir, root) = root();
    for i in 0..200 {
        write(
            &root,
            &format!("s{i:03}/SKILL.md"),
            skill_md(&format!("s{i:03}"), "v1").as_bytes(),
        );
    }
    let options = WatchOptions {
        window: Duration::from_millis(150),
        max_delay: Duration::from_secs(5),
        ..WatchOptions::default()
    };
    let live = live(std::slice::from_ref(&root), options);
    let provider = live.registry.providers()[0].clone();
    let watcher = live.registry.watcher().unwrap();
    let generation = provider.signals().generation();
    // What a `git checkout` does: many files rewritten in one go.
    for i in 0..200 {
        write(
            &root,
            &format!("s{i:03}/SKILL.md"),
            skill_md(&format!("s{i:03}"), "v2").as_bytes(),
        );
    }
    live.until("all 200 changes", |c| {
        c.skills.len() == 200 && c.skills.iter().all(|s| s.description() == Some("v2"))
    });
    assert_eq!(
        watcher.deliveries(&provider),
        1,
        "one delivery for the burst"
    );
    assert_eq!(
        provider.signals().generation(),
        generation + 1,
        "one invalidation"
    );
}

#[test]
fn project_watchers_are_bounded_and_the_least_recently_used_is_evicted() {
    // One registry per project, one watcher for all, room for two.
    let watcher = Arc::new(
        skillhost::registry::watch::Watcher::start(WatchOptions {
            max_project_watchers: 2,
            ..WatchOptions::default()
        })
        .unwrap(),
    );
    let runtime = runtime();
    let projects: Vec<(tempfile::TempDir, PathBuf, Registry)> = (0..3)
        .map(|i| {
            let (dir, root) = root();
            write(
                &root,
                &format!("p{i}/SKILL.md"),
                skill_md(&format!("p{i}"), "v1").as_bytes(),
            );
            let registry = Registry::new();
            registry
                .add(runtime.local_provider_in(&root, Scope::Project).unwrap())
                .unwrap();
            registry.watch_with(watcher.clone());
            registry.snapshot();
            (dir, root, registry)
        })
        .collect();
    let provider = |i: usize| projects[i].2.providers()[0].clone();
    assert!(
        watcher.is_evicted(&provider(0)),
        "the least recently used goes"
    );
    assert!(!watcher.is_evicted(&provider(1)) && !watcher.is_evicted(&provider(2)));

    // A change under an evicted watcher is not delivered...
    let delivered = watcher.deliveries(&provider(0));
    write(
        &projects[0].1,
        "p0/SKILL.md",
        skill_md("p0", "v2").as_bytes(),
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(watcher.deliveries(&provider(0)), delivered);
    // ...and reading its catalog changes nothing about what is watched: a
    // snapshot is a read, never a use...
    projects[0].2.snapshot();
    assert!(watcher.is_evicted(&provider(0)));
    assert!(!watcher.is_evicted(&provider(1)));
    // ...but using the project again watches it again (evicting the next
    // least recently used) and rescans, so nothing is missed.
    assert!(projects[0].2.resume_watching());
    let catalog = projects[0].2.snapshot();
    assert_eq!(catalog.get("p0").and_then(|s| s.description()), Some("v2"));
    assert!(!watcher.is_evicted(&provider(0)));
    assert!(watcher.is_evicted(&provider(1)));
    // And it is live again.
    write(
        &projects[0].1,
        "p0/SKILL.md",
        skill_md("p0", "v3").as_bytes(),
    );
    let started = Instant::now();
    while projects[0]
        .2
        .snapshot()
        .get("p0")
        .and_then(|s| s.description())
        != Some("v3")
    {
        assert!(
            started.elapsed() < PATIENCE,
            "the re-watched project missed a change"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn after_dispose_changes_do_nothing() {
    let (_dir, root) = root();
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    live.registry.dispose();
    // Notifications about the set-up may still be on their way: only what
    // arrives after the late change counts.
    std::thread::sleep(Duration::from_millis(50));
    while live.changes.try_recv().is_ok() {}
    write(
        &root,
        "late/SKILL.md",
        skill_md("late", "After dispose").as_bytes(),
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(live.changes.try_recv().is_err(), "no listener was called");
    assert!(live.registry.snapshot().skills.is_empty());
}

#[test]
fn a_new_bundle_folder_is_watched_for_its_skill_file() {
    // The folder appears first, the SKILL.md a moment later: the second
    // event must not be lost (recursive inotify misses it; see NOTES).
    let (_dir, root) = root();
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    std::fs::create_dir(root.join("slow")).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        live.registry.snapshot().get("slow").is_none(),
        "no SKILL.md yet"
    );
    std::fs::write(
        root.join("slow/SKILL.md"),
        skill_md("slow", "Written later"),
    )
    .unwrap();
    live.until("a SKILL.md written after its folder", named("slow"));
}

#[test]
fn write_stability_waits_for_a_file_written_in_steps() {
    let (_dir, root) = root();
    write(
        &root,
        "steady/SKILL.md",
        skill_md("steady", "v1").as_bytes(),
    );
    let options = WatchOptions {
        stability: Some(Duration::from_millis(300)),
        ..WatchOptions::default()
    };
    let live = live(std::slice::from_ref(&root), options);
    let provider = live.registry.providers()[0].clone();
    let watcher = live.registry.watcher().unwrap();
    let delivered = watcher.deliveries(&provider);
    // A writer that saves in two steps, 100 ms apart: half a file, then all.
    let full = skill_md("steady", "v2 written in two steps");
    std::fs::write(root.join("steady/SKILL.md"), &full[..full.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    std::fs::write(root.join("steady/SKILL.md"), &full).unwrap();
    live.until("the file once it is stable", |c| {
        c.get("steady").and_then(|s| s.description()) == Some("v2 written in two steps")
    });
    assert_eq!(
        watcher.deliveries(&provider),
        delivered + 1,
        "one delivery, after the last step"
    );
    assert!(
        live.registry.snapshot().diagnostics.is_empty(),
        "the half-written file was never parsed"
    );
}
