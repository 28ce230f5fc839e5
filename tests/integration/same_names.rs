//! Two documents of one provider declaring one name (a folder copied and
//! not renamed): both stay reachable. The first keeps the name, the other
//! is served under its folder's name with a warning naming both, and a
//! name already served never moves to another skill while both stay.

use skillhost::provider::ChangeKind;
use skillhost::{Catalog, Diagnostic, Severity};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    registry: skillhost::Registry,
    provider: Arc<skillhost::Provider>,
}

impl Fixture {
    fn new(files: &[(&str, &[u8])]) -> Fixture {
        let dir = tree(files);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let registry = runtime().registry_for_roots(&[&root]).unwrap();
        let provider = registry.providers()[0].clone();
        Fixture {
            _dir: dir,
            root,
            registry,
            provider,
        }
    }

    fn change(&self, path: &str, kind: ChangeKind) {
        self.provider
            .on_change(&[(self.root.join(path), kind)])
            .unwrap();
    }

    /// The description of the skill served as `name`.
    fn description(&self, name: &str) -> Option<String> {
        let catalog = self.registry.snapshot();
        Some(catalog.get(name)?.description()?.to_string())
    }
}

fn warning_for<'c>(catalog: &'c Catalog, path: &Path) -> Option<&'c Diagnostic> {
    catalog
        .diagnostics
        .iter()
        .find(|d| Path::new(&d.path) == path)
}

#[test]
fn the_second_of_two_same_named_folders_is_served_under_its_folder_name() {
    let f = Fixture::new(&[
        (
            "a/SKILL.md",
            skill_md("same", "First by folder order").as_bytes(),
        ),
        (
            "b/SKILL.md",
            skill_md("same", "Second by folder order").as_bytes(),
        ),
    ]);
    let catalog = f.registry.snapshot();
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["b", "same"]);
    assert_eq!(
        catalog.get("same").and_then(|s| s.description()),
        Some("First by folder order")
    );
    let second = catalog.get("b").unwrap();
    assert_eq!(second.description(), Some("Second by folder order"));
    // The declared name is kept as the text people read.
    assert_eq!(second.frontmatter.display_name.as_deref(), Some("same"));

    // One warning, on the second, naming the first; no duplicate error.
    let d = warning_for(&catalog, &f.root.join("b/SKILL.md")).expect("a warning names it");
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.message.contains("\"same\""), "{d}");
    assert!(d.message.contains("a/SKILL.md"), "{d}");
    assert!(d.message.contains("served as \"b\""), "{d}");
    assert_eq!(catalog.diagnostics.len(), 1, "{:?}", catalog.diagnostics);

    // Each loads by the name it is served under, and by its folder.
    let first = f.registry.load("same").unwrap();
    assert_eq!(first.skill.description(), Some("First by folder order"));
    let second = f.registry.load("b").unwrap();
    assert_eq!(second.skill.description(), Some("Second by folder order"));
    assert_eq!(second.skill.name(), "b");
    assert_eq!(second.body, "# same\n\nBody of same.\n");
    let by_folder = f.registry.load("a").unwrap();
    assert_eq!(by_folder.skill.name(), "same");
    assert!(f.registry.list_resources("b").is_ok());
}

#[test]
fn when_the_holder_goes_the_renamed_skill_takes_its_name_and_a_newcomer_does_not_take_it_back() {
    let f = Fixture::new(&[
        ("a/SKILL.md", skill_md("same", "First").as_bytes()),
        ("b/SKILL.md", skill_md("same", "Second").as_bytes()),
    ]);
    assert_eq!(f.description("same").as_deref(), Some("First"));

    std::fs::remove_dir_all(f.root.join("a")).unwrap();
    f.change("a", ChangeKind::Removed);
    let catalog = f.registry.snapshot();
    assert_eq!(
        catalog.get("same").and_then(|s| s.description()),
        Some("Second")
    );
    assert!(catalog.get("b").is_none(), "no longer served twice");
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    assert_eq!(f.registry.load("same").unwrap().skill.name(), "same");

    // The folder comes back: the name stays with the skill serving it.
    write(
        &f.root,
        "a/SKILL.md",
        skill_md("same", "First again").as_bytes(),
    );
    f.change("a", ChangeKind::Created);
    let catalog = f.registry.snapshot();
    assert_eq!(
        catalog.get("same").and_then(|s| s.description()),
        Some("Second")
    );
    assert_eq!(
        catalog.get("a").and_then(|s| s.description()),
        Some("First again")
    );
    let d = warning_for(&catalog, &f.root.join("a/SKILL.md")).expect("the newcomer is named");
    assert!(d.message.contains("b/SKILL.md"), "{d}");

    // The holder renames itself: the waiting skill takes the name.
    write(
        &f.root,
        "b/SKILL.md",
        skill_md("other", "Second, renamed").as_bytes(),
    );
    f.change("b/SKILL.md", ChangeKind::Modified);
    let catalog = f.registry.snapshot();
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["other", "same"]);
    assert_eq!(
        catalog.get("same").and_then(|s| s.description()),
        Some("First again")
    );
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
}

#[test]
fn a_blind_rescan_keeps_the_names_as_they_are() {
    let f = Fixture::new(&[
        ("a/SKILL.md", skill_md("same", "First").as_bytes()),
        ("b/SKILL.md", skill_md("same", "Second").as_bytes()),
    ]);
    let before = f.registry.snapshot();
    f.registry.invalidate_provider(&f.provider);
    let after = f.registry.snapshot();
    assert_eq!(before.skills, after.skills);
    assert_eq!(f.provider.stats().last_received(), 0, "nothing changed");
}

#[test]
fn without_a_usable_folder_name_the_duplicate_is_reported_naming_both() {
    let f = Fixture::new(&[
        ("a/SKILL.md", skill_md("same", "First").as_bytes()),
        (
            "b c/SKILL.md",
            skill_md("same", "In a folder with a space").as_bytes(),
        ),
    ]);
    let catalog = f.registry.snapshot();
    assert_eq!(catalog.skills.len(), 1);
    let d = warning_for(&catalog, &f.root.join("b c/SKILL.md")).expect("the duplicate is named");
    assert!(d.message.contains("duplicate skill name"), "{d}");
    assert!(
        d.message
            .contains(&f.root.join("a/SKILL.md").display().to_string()),
        "{d}"
    );
}

#[test]
fn flat_files_fall_back_to_their_stem() {
    let f = Fixture::new(&[
        ("a.md", skill_md("same", "First flat").as_bytes()),
        ("b.md", skill_md("same", "Second flat").as_bytes()),
    ]);
    assert_eq!(f.description("same").as_deref(), Some("First flat"));
    assert_eq!(f.description("b").as_deref(), Some("Second flat"));
    assert_eq!(
        f.registry.load("b").unwrap().skill.description(),
        Some("Second flat")
    );
}

#[test]
fn three_hundred_folders_declaring_one_name_are_all_served() {
    let texts: Vec<(String, String)> = (0..300)
        .map(|i| {
            (
                format!("copy-{i:03}/SKILL.md"),
                skill_md("template", &format!("Copy {i}")),
            )
        })
        .collect();
    let files: Vec<(&str, &[u8])> = texts
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_bytes()))
        .collect();
    let f = Fixture::new(&files);
    let catalog = f.registry.snapshot();
    assert_eq!(catalog.skills.len(), 300);
    assert_eq!(
        catalog.get("template").and_then(|s| s.description()),
        Some("Copy 0")
    );
    assert_eq!(
        catalog.get("copy-299").and_then(|s| s.description()),
        Some("Copy 299")
    );
    let warnings = catalog
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("copy-000/SKILL.md already has"))
        .count();
    assert_eq!(warnings, 299, "{:?}", catalog.diagnostics.first());
}
