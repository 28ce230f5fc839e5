//! Registry semantics over real provider components and real files:
//! precedence and shadowing, exact invalidation, completeness and the last
//! complete view, fresh bodies on every load, stale names rejected.

use skillhost::error::{Error, ProviderErrorKind};
use skillhost::sandbox::Limits;
use skillhost::{Registry, Severity};
use skillhost_tests::{PROBE_GUEST, provider_of, runtime, skill_md, tree, write};
use std::path::Path;

#[test]
fn invalidating_one_provider_asks_only_that_provider_again() {
    let a = tree(&[("one/SKILL.md", skill_md("one", "From A").as_bytes())]);
    let b = tree(&[("two/SKILL.md", skill_md("two", "From B").as_bytes())]);
    let runtime = runtime();
    let registry = runtime
        .registry_for_roots(&[a.path().to_path_buf(), b.path().to_path_buf()])
        .unwrap();
    let providers = registry.providers();
    let calls = || {
        providers
            .iter()
            .map(|p| p.stats().snapshots())
            .collect::<Vec<_>>()
    };

    let first = registry.snapshot();
    assert_eq!(first.skills.len(), 2);
    assert_eq!(calls(), [1, 1]);
    let again = registry.snapshot();
    assert!(
        std::sync::Arc::ptr_eq(&first, &again),
        "a complete catalog is cached"
    );
    assert_eq!(calls(), [1, 1]);

    write(
        a.path(),
        "three/SKILL.md",
        skill_md("three", "Also from A").as_bytes(),
    );
    assert!(registry.invalidate_provider(&providers[0]));
    let catalog = registry.snapshot();
    assert_eq!(catalog.skills.len(), 3);
    assert_eq!(calls(), [2, 1], "the clean provider was not asked again");
}

#[test]
fn a_provider_that_is_not_registered_cannot_be_invalidated_through_the_registry() {
    let a = tree(&[("one/SKILL.md", skill_md("one", "From A").as_bytes())]);
    let runtime = runtime();
    let registry = runtime
        .registry_for_roots(&[a.path().to_path_buf()])
        .unwrap();
    let stranger = runtime.local_provider(a.path()).unwrap();
    registry.snapshot();
    assert!(
        !registry.invalidate_provider(&stranger),
        "identity, not id, decides"
    );
    registry.snapshot();
    assert_eq!(registry.providers()[0].stats().snapshots(), 1);
}

#[test]
fn a_higher_root_shadows_a_lower_one_with_a_diagnostic() {
    let project = tree(&[(
        "deploy/SKILL.md",
        skill_md("deploy", "Project deploy").as_bytes(),
    )]);
    let user = tree(&[
        (
            "deploy/SKILL.md",
            skill_md("deploy", "User deploy").as_bytes(),
        ),
        (
            "other/SKILL.md",
            skill_md("other", "Only in user").as_bytes(),
        ),
    ]);
    let registry = runtime()
        .registry_for_roots(&[project.path().to_path_buf(), user.path().to_path_buf()])
        .unwrap();
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("deploy").and_then(|s| s.description()),
        Some("Project deploy")
    );
    assert!(catalog.get("other").is_some());
    let shadowed = std::fs::canonicalize(user.path())
        .unwrap()
        .join("deploy/SKILL.md");
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| Path::new(&d.path) == shadowed)
        .expect("a shadowing diagnostic");
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.message.contains("shadowed"), "{d}");
}

#[test]
fn a_skill_folder_linked_into_two_roots_counts_once() {
    let shared = tree(&[(
        "linked/SKILL.md",
        skill_md("linked", "Lives elsewhere").as_bytes(),
    )]);
    let a = tree(&[]);
    let b = tree(&[]);
    std::os::unix::fs::symlink(shared.path().join("linked"), a.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(shared.path().join("linked"), b.path().join("linked")).unwrap();
    let registry = runtime()
        .registry_for_roots(&[a.path().to_path_buf(), b.path().to_path_buf()])
        .unwrap();
    let catalog = registry.snapshot();
    assert_eq!(catalog.skills.len(), 1);
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    let skill = catalog.get("linked").unwrap();
    let target = std::fs::canonicalize(shared.path()).unwrap().join("linked");
    assert_eq!(
        skill.path,
        target.join("SKILL.md"),
        "the canonical path, outside both roots"
    );
    let doc = registry.load("linked").unwrap();
    assert!(doc.body.contains("Body of linked"));
}

#[test]
fn every_load_reads_the_current_body() {
    let root = tree(&[("notes/SKILL.md", skill_md("notes", "Notes").as_bytes())]);
    let registry = runtime()
        .registry_for_roots(&[root.path().to_path_buf()])
        .unwrap();
    assert!(
        registry
            .load("notes")
            .unwrap()
            .body
            .contains("Body of notes")
    );
    write(
        root.path(),
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: Notes\n---\nEdited body\n",
    );
    assert_eq!(registry.load("notes").unwrap().body, "Edited body\n");
}

#[test]
fn loading_a_skill_whose_file_now_has_another_name_is_rejected_and_invalidates() {
    let root = tree(&[(
        "old/SKILL.md",
        skill_md("old", "Before the rename").as_bytes(),
    )]);
    let registry = runtime()
        .registry_for_roots(&[root.path().to_path_buf()])
        .unwrap();
    registry.snapshot();
    write(
        root.path(),
        "old/SKILL.md",
        skill_md("renamed", "After the rename").as_bytes(),
    );
    let provider = registry.providers()[0].clone();
    assert!(!provider.signals().is_dirty());
    match registry.load("old") {
        Err(Error::Provider { kind, message, .. }) => {
            assert_eq!(kind, ProviderErrorKind::NameMismatch);
            assert!(message.contains("renamed"), "{message}");
        }
        other => panic!("expected a name mismatch, got {other:?}"),
    }
    assert!(
        provider.signals().is_dirty(),
        "the stale provider is invalidated"
    );
    let catalog = registry.snapshot();
    assert!(catalog.get("old").is_none());
    assert_eq!(
        catalog.get("renamed").and_then(|s| s.description()),
        Some("After the rename")
    );
}

#[test]
fn an_unknown_name_lists_what_exists() {
    let root = tree(&[
        ("alpha/SKILL.md", skill_md("alpha", "A").as_bytes()),
        ("beta/SKILL.md", skill_md("beta", "B").as_bytes()),
    ]);
    let registry = runtime()
        .registry_for_roots(&[root.path().to_path_buf()])
        .unwrap();
    let err = registry.load("gamma").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no skill named \"gamma\"; none has a similar name (2 skill(s) available)"
    );
    let err = registry.load("alpah").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no skill named \"alpah\"; did you mean alpha? (2 skill(s) available)"
    );
}

#[test]
fn an_alias_loads_its_skill() {
    let root = tree(&[(
        "commit/SKILL.md",
        b"---\nname: commit\ndescription: Commit\naliases: [ci, git-commit]\n---\nbody\n",
    )]);
    let registry = runtime()
        .registry_for_roots(&[root.path().to_path_buf()])
        .unwrap();
    assert_eq!(registry.load("git-commit").unwrap().skill.name(), "commit");
}

#[test]
fn an_incomplete_observation_keeps_the_last_complete_view_and_is_not_cached() {
    let root = tree(&[("inside.txt", b"x")]);
    let runtime = runtime();
    let probe = provider_of(
        &runtime,
        "flaky",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![root.path().to_path_buf()],
        &[("fail-if-exists", "fail")],
        Limits::default(),
    );
    let registry = Registry::new();
    registry.add(probe.clone()).unwrap();
    let healthy = registry.snapshot();
    assert!(healthy.complete);
    assert_eq!(healthy.skills.len(), 1);

    write(root.path(), "fail", b"");
    registry.invalidate_provider(&probe);
    let failing = registry.snapshot();
    assert!(!failing.complete);
    assert_eq!(
        failing.skills, healthy.skills,
        "the last complete view is kept"
    );
    assert!(
        failing
            .diagnostics
            .iter()
            .any(|d| d.message.contains("fails as asked"))
    );
    let asked = probe.stats().snapshots();
    registry.snapshot();
    assert_eq!(
        probe.stats().snapshots(),
        asked + 1,
        "an incomplete catalog is not cached"
    );

    std::fs::remove_file(root.path().join("fail")).unwrap();
    // Once the restart backoff has passed, the provider answers again.
    std::thread::sleep(Limits::default().restart_initial * 2);
    let recovered = registry.snapshot();
    assert!(recovered.complete, "{:?}", recovered.diagnostics);
    assert_eq!(recovered.skills, healthy.skills);
}

#[test]
fn disposing_the_registry_stops_every_provider() {
    let root = tree(&[("one/SKILL.md", skill_md("one", "A").as_bytes())]);
    let registry = runtime()
        .registry_for_roots(&[root.path().to_path_buf()])
        .unwrap();
    let provider = registry.providers()[0].clone();
    registry.snapshot();
    registry.dispose();
    assert!(registry.snapshot().skills.is_empty());
    provider.invalidate();
    assert!(
        !provider.signals().is_dirty(),
        "a disposed provider ignores late signals"
    );
}

#[test]
fn a_provider_invalidated_during_discovery_is_asked_again_before_the_snapshot_returns() {
    let root = tree(&[("inside.txt", b"x")]);
    let runtime = runtime();
    let restless = provider_of(
        &runtime,
        "restless",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![root.path().to_path_buf()],
        &[("invalidate-during-snapshot", "1")],
        Limits::default(),
    );
    let registry = Registry::new();
    registry.add(restless.clone()).unwrap();
    let catalog = registry.snapshot();
    assert_eq!(restless.stats().snapshots(), 2, "discovery ran again");
    assert!(catalog.complete);
    assert!(!restless.signals().is_dirty());
}

#[test]
fn a_panicking_listener_does_not_stop_the_others_or_the_registry() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    let root = tree(&[("one/SKILL.md", skill_md("one", "A").as_bytes())]);
    let registry = runtime().registry_for_roots(&[root.path()]).unwrap();
    registry.snapshot();
    let panics = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = panics.clone();
    let _bad = registry.subscribe(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        panic!("a broken listener");
    });
    let (tx, rx) = mpsc::channel();
    let _good = registry.subscribe(move |_| {
        let _ = tx.send(());
    });
    for round in 0..2 {
        registry.invalidate_provider(&registry.providers()[0]);
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("round {round}: the good listener was not called"));
        assert_eq!(registry.snapshot().skills.len(), 1);
    }
    assert!(
        panics.load(Ordering::SeqCst) >= 1,
        "the broken listener ran too"
    );
}

#[test]
fn a_dropped_subscription_is_not_called_again() {
    use std::sync::mpsc;
    let root = tree(&[("one/SKILL.md", skill_md("one", "A").as_bytes())]);
    let registry = runtime().registry_for_roots(&[root.path()]).unwrap();
    let (tx, rx) = mpsc::channel();
    let subscription = registry.subscribe(move |_| {
        let _ = tx.send(());
    });
    registry.invalidate_provider(&registry.providers()[0]);
    rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    drop(subscription);
    while rx.try_recv().is_ok() {}
    registry.invalidate_provider(&registry.providers()[0]);
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(rx.try_recv().is_err());
}

#[test]
fn a_replaced_provider_with_the_same_id_is_not_invalidated_by_the_old_one() {
    let root = tree(&[("one/SKILL.md", skill_md("one", "A").as_bytes())]);
    let runtime = runtime();
    let registry = Registry::new();
    let old = runtime.local_provider(root.path()).unwrap();
    registry.add(old.clone()).unwrap();
    registry.snapshot();
    let id = old.id().to_string();
    registry.remove(&id);
    let new = runtime.local_provider(root.path()).unwrap();
    assert_eq!(new.id(), id);
    registry.add(new.clone()).unwrap();
    registry.snapshot();
    old.invalidate();
    assert!(!new.signals().is_dirty(), "identity, not id");
    assert!(!registry.invalidate_provider(&old));
}

#[test]
fn a_second_provider_with_an_id_already_registered_is_refused_by_name() {
    let root = tree(&[("a/SKILL.md", skill_md("a", "First").as_bytes())]);
    let runtime = runtime();
    let registry = Registry::new();
    registry
        .add(runtime.local_provider(root.path()).unwrap())
        .unwrap();
    let error = registry
        .add(runtime.local_provider(root.path()).unwrap())
        .unwrap_err();
    assert!(
        matches!(&error, Error::DuplicateProvider { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("already registered"), "{error}");
    // Two mirrors on one host default to one label, hence one id: the
    // second is refused with the fix (another label), and a label tells
    // them apart.
    let first = skillhost::RemoteSource::from_arg("http://127.0.0.1:9/a/index.json").unwrap();
    let second = skillhost::RemoteSource::from_arg("http://127.0.0.1:9/b/index.json").unwrap();
    registry
        .add(runtime.remote_provider(&first).unwrap())
        .unwrap();
    let error = registry
        .add(runtime.remote_provider(&second).unwrap())
        .unwrap_err();
    assert!(
        error.to_string().contains(&first.provider_id()) && error.to_string().contains("label"),
        "{error}"
    );
    let labelled = skillhost::RemoteSource::from_arg("b=http://127.0.0.1:9/b/index.json").unwrap();
    registry
        .add(runtime.remote_provider(&labelled).unwrap())
        .unwrap();
    assert_eq!(
        registry.snapshot().skills.len(),
        1,
        "the local skill is still listed"
    );
}
