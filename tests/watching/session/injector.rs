//! The injector's rules: nothing twice, an explicit empty catalog,
//! incomplete snapshots, compaction, other injectors' events.

use super::*;

#[test]
fn an_unchanged_catalog_is_not_published_again_and_a_body_only_edit_keeps_the_digest() {
    let project = Project::new();
    assert_eq!(project.inject(), Outcome::Published);
    let digest = project.last_catalog().digest;
    assert_eq!(project.inject(), Outcome::Unchanged);
    write(
        &project.skills(),
        "greet/SKILL.md",
        GREET.replace("Welcome", "Hi there").as_bytes(),
    );
    assert_eq!(
        project.inject(),
        Outcome::Unchanged,
        "a body edit changes nothing the model sees"
    );
    assert_eq!(project.last_catalog().digest, digest);
    write(
        &project.skills(),
        "greet/SKILL.md",
        GREET.replace("Greets someone", "Greets anyone").as_bytes(),
    );
    assert_eq!(
        project.inject(),
        Outcome::Published,
        "a description edit is a full replacement"
    );
    assert!(
        project
            .last_catalog()
            .content
            .unwrap()
            .contains("- greet: Greets anyone")
    );
}

#[test]
fn when_every_skill_is_gone_an_explicit_empty_catalog_is_published_once() {
    let project = Project::new();
    assert_eq!(project.inject(), Outcome::Published);
    std::fs::remove_dir_all(project.skills()).unwrap();
    assert_eq!(project.inject(), Outcome::Tombstone);
    assert_eq!(
        project.last_catalog().content.as_deref(),
        Some(format!("{OPEN}\n{CLOSE}").as_str())
    );
    assert_eq!(project.inject(), Outcome::Unchanged);
}

#[test]
fn nothing_is_published_when_nothing_ever_was_and_there_is_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let registry = runtime()
        .registry_for_roots(&[dir.path().join("none")])
        .unwrap();
    let mut log = JsonlLog::open(&session).unwrap();
    assert_eq!(
        Injector::default()
            .replace(&registry.snapshot(), &mut log)
            .unwrap(),
        Outcome::None
    );
    assert_eq!(log.len(), 0);
}

#[test]
fn an_incomplete_snapshot_keeps_the_last_complete_view() {
    use skillhost::sandbox::Limits;
    use skillhost_tests::{PROBE_GUEST, provider_of, tree};
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
    let dir = tempfile::tempdir().unwrap();
    let mut log = JsonlLog::open(&dir.path().join("s.jsonl")).unwrap();
    let injector = Injector::default();
    assert_eq!(
        injector.replace(&registry.snapshot(), &mut log).unwrap(),
        Outcome::Published
    );
    write(root.path(), "fail", b"");
    probe.invalidate();
    let incomplete = registry.snapshot();
    assert!(!incomplete.complete);
    assert_eq!(
        injector.replace(&incomplete, &mut log).unwrap(),
        Outcome::KeptIncomplete
    );
    assert_eq!(log.len(), 1, "nothing appended");
}

#[test]
fn after_compaction_hides_every_catalog_the_current_one_is_published_again() {
    let project = Project::new();
    assert_eq!(project.inject(), Outcome::Published);
    project.hide_all_events();
    assert_eq!(
        project.inject(),
        Outcome::Published,
        "recovered after compaction"
    );
    assert_eq!(project.inject(), Outcome::Unchanged);
    // Even an empty catalog is re-established.
    std::fs::remove_dir_all(project.skills()).unwrap();
    assert_eq!(project.inject(), Outcome::Tombstone);
    project.hide_all_events();
    assert_eq!(project.inject(), Outcome::Tombstone, "the tombstone too");
}

#[test]
fn another_injectors_catalogs_are_not_mistaken_for_ours() {
    let project = Project::new();
    let (registry, mut log) = project.open();
    let other = Injector {
        source: "another-plugin".to_string(),
        ..Injector::default()
    };
    assert_eq!(
        other.replace(&registry.snapshot(), &mut log).unwrap(),
        Outcome::Published
    );
    assert_eq!(
        Injector::default()
            .replace(&registry.snapshot(), &mut log)
            .unwrap(),
        Outcome::Published
    );
}
