//! How the local provider follows changes: it re-examines only what it is
//! told changed (or everything on a blind rescan), invalidates only when the
//! catalog changes (a body-only edit invalidates nothing; the agent's own
//! writes are seen at once), and sends only the changes.

use skillhost::provider::ChangeKind;
use skillhost::{Provider, Registry};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    registry: Registry,
    provider: Arc<Provider>,
}

fn fixture(skills: &[(&str, &str)]) -> Fixture {
    let files: Vec<(String, String)> = skills
        .iter()
        .map(|(name, description)| (format!("{name}/SKILL.md"), skill_md(name, description)))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    let dir = tree(&refs);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let registry = runtime().registry_for_roots(&[&root]).unwrap();
    let provider = registry.providers()[0].clone();
    registry.snapshot();
    Fixture {
        _dir: dir,
        root,
        registry,
        provider,
    }
}

impl Fixture {
    fn change(&self, path: &str, kind: ChangeKind) {
        self.provider
            .on_change(&[(self.root.join(path), kind)])
            .unwrap();
    }

    fn description(&self, name: &str) -> Option<String> {
        self.registry
            .snapshot()
            .get(name)
            .and_then(|s| s.description().map(str::to_string))
    }
}

#[test]
fn a_body_only_edit_changes_nothing_in_the_catalog() {
    let f = fixture(&[("notes", "Take notes"), ("other", "Other")]);
    let before = f.registry.snapshot();
    write(
        &f.root,
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: Take notes\n---\nA new body.\n",
    );
    f.change("notes/SKILL.md", ChangeKind::Modified);
    assert!(
        !f.provider.signals().is_dirty(),
        "no invalidation for a body edit"
    );
    assert!(
        Arc::ptr_eq(&before, &f.registry.snapshot()),
        "the cached catalog stands"
    );
    assert_eq!(f.registry.load("notes").unwrap().body, "A new body.\n");
}

#[test]
fn a_description_edit_invalidates_and_only_that_entry_crosses_the_boundary() {
    let f = fixture(&[("a", "First"), ("b", "Second"), ("c", "Third")]);
    assert_eq!(f.provider.stats().last_received(), 3);
    write(
        &f.root,
        "b/SKILL.md",
        skill_md("b", "Second, reworded").as_bytes(),
    );
    f.change("b/SKILL.md", ChangeKind::Modified);
    assert!(f.provider.signals().is_dirty());
    assert_eq!(f.description("b").as_deref(), Some("Second, reworded"));
    assert_eq!(
        f.provider.stats().last_received(),
        1,
        "a delta, not the whole list"
    );
    assert_eq!(f.registry.snapshot().skills.len(), 3);
}

#[test]
fn a_whole_answer_is_sent_ahead_in_batches_while_a_delta_comes_with_the_answer() {
    let names: Vec<String> = (0..150).map(|i| format!("s{i:03}")).collect();
    let skills: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "Some skill")).collect();
    let f = fixture(&skills);
    // Every batch the provider parsed went over while it read the next.
    assert_eq!(f.provider.stats().last_received(), 150);
    assert_eq!(f.provider.stats().last_received_ahead(), 150);
    assert_eq!(f.registry.snapshot().skills.len(), 150);
    write(
        &f.root,
        "s007/SKILL.md",
        skill_md("s007", "Reworded").as_bytes(),
    );
    f.change("s007/SKILL.md", ChangeKind::Modified);
    assert_eq!(f.description("s007").as_deref(), Some("Reworded"));
    assert_eq!(f.provider.stats().last_received(), 1, "a delta");
    assert_eq!(
        f.provider.stats().last_received_ahead(),
        0,
        "a delta is the answer alone"
    );
    assert_eq!(f.registry.snapshot().skills.len(), 150);
}

#[test]
fn a_removed_bundle_leaves_the_catalog() {
    let f = fixture(&[("keep", "Stays"), ("gone", "Goes away")]);
    std::fs::remove_dir_all(f.root.join("gone")).unwrap();
    f.change("gone", ChangeKind::Removed);
    assert!(f.provider.signals().is_dirty());
    let catalog = f.registry.snapshot();
    assert!(catalog.get("gone").is_none());
    assert!(catalog.get("keep").is_some());
}

#[test]
fn a_renamed_bundle_and_a_new_flat_skill_appear() {
    let f = fixture(&[("old", "Renamed soon")]);
    std::fs::rename(f.root.join("old"), f.root.join("new")).unwrap();
    write(
        &f.root,
        "flat.md",
        b"---\ndescription: A flat one\n---\nbody\n",
    );
    f.provider
        .on_change(&[
            (f.root.join("old"), ChangeKind::Removed),
            (f.root.join("new"), ChangeKind::Created),
            (f.root.join("flat.md"), ChangeKind::Created),
        ])
        .unwrap();
    let catalog = f.registry.snapshot();
    // The frontmatter still says `old`; the folder changed.
    let skill = catalog.get("old").expect("still named by its frontmatter");
    assert_eq!(skill.path, f.root.join("new/SKILL.md"));
    assert_eq!(
        catalog.get("flat").and_then(|s| s.description()),
        Some("A flat one")
    );
}

#[test]
fn a_change_deep_inside_a_bundle_is_ignored() {
    let f = fixture(&[("tool", "Has references")]);
    write(&f.root, "tool/references/guide.md", b"# Guide\n");
    f.change("tool/references/guide.md", ChangeKind::Created);
    assert!(!f.provider.signals().is_dirty());
}

#[test]
fn the_agents_own_write_invalidates_synchronously() {
    let f = fixture(&[("mine", "Before")]);
    write(
        &f.root,
        "mine/SKILL.md",
        skill_md("mine", "After").as_bytes(),
    );
    f.provider.observe(&[f.root.join("mine/SKILL.md")]).unwrap();
    assert!(f.provider.signals().is_dirty());
    assert_eq!(f.description("mine").as_deref(), Some("After"));
}

#[test]
fn a_blind_invalidation_rescans_everything() {
    let f = fixture(&[("quiet", "Before"), ("other", "Other")]);
    write(
        &f.root,
        "quiet/SKILL.md",
        skill_md("quiet", "Changed without a word").as_bytes(),
    );
    write(
        &f.root,
        "added/SKILL.md",
        skill_md("added", "Also unannounced").as_bytes(),
    );
    // Without an event the provider has no reason to look.
    assert_eq!(f.description("quiet").as_deref(), Some("Before"));
    f.registry.invalidate_provider(&f.provider);
    assert_eq!(
        f.description("quiet").as_deref(),
        Some("Changed without a word")
    );
    assert_eq!(f.description("added").as_deref(), Some("Also unannounced"));
    assert_eq!(
        f.provider.stats().last_received(),
        2,
        "only the changed and the new entry"
    );
}

#[test]
fn a_broken_file_that_gets_fixed_clears_its_diagnostic() {
    let f = fixture(&[("fine", "Fine")]);
    write(
        &f.root,
        "wip/SKILL.md",
        b"---\nname: wip\ndescription: [unclosed\n---\n",
    );
    f.change("wip", ChangeKind::Created);
    let catalog = f.registry.snapshot();
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| Path::new(&d.path).ends_with("wip/SKILL.md"))
    );
    write(&f.root, "wip/SKILL.md", skill_md("wip", "Done").as_bytes());
    f.change("wip/SKILL.md", ChangeKind::Modified);
    let catalog = f.registry.snapshot();
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    assert_eq!(
        catalog.get("wip").and_then(|s| s.description()),
        Some("Done")
    );
}

/// Depth 2: the skill folders' own entries (the catalog) and their
/// subfolders' (`references/`, whose digests `skillhost serve` lists).
#[test]
fn the_provider_asks_the_host_to_watch_its_root_two_levels_deep() {
    let f = fixture(&[("x", "X")]);
    let watches = f.provider.watches();
    assert_eq!(watches.len(), 1, "{watches:?}");
    assert_eq!(watches.values().next().unwrap().depth, 2);
}

#[test]
fn a_skill_whose_file_breaks_leaves_the_catalog_in_a_delta() {
    let f = fixture(&[("steady", "Stays"), ("fragile", "Breaks soon")]);
    assert!(f.registry.snapshot().get("fragile").is_some());
    write(
        &f.root,
        "fragile/SKILL.md",
        b"---\nname: fragile\ndescription: [unclosed\n---\n",
    );
    f.change("fragile/SKILL.md", ChangeKind::Modified);
    assert!(f.provider.signals().is_dirty());
    let catalog = f.registry.snapshot();
    assert!(
        catalog.get("fragile").is_none(),
        "a broken file is not a skill any more"
    );
    assert!(catalog.get("steady").is_some());
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| Path::new(&d.path).ends_with("fragile/SKILL.md")),
        "{:?}",
        catalog.diagnostics
    );
    assert_eq!(
        f.provider.stats().last_received(),
        0,
        "the removal crossed as a delta, not as the whole list"
    );
}
