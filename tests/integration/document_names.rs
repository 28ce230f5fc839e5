//! Which file of a skill folder is its document, as the local provider
//! (and so the catalog and the validator) reads it: `SKILL.md`, else a
//! lowercase `skill.md`; never a flat skill named `skill`, never another
//! casing. And the choice follows the files as they change.

use skillhost::provider::ChangeKind;
use skillhost::{Catalog, Severity};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn catalog_of(files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf, Arc<Catalog>) {
    let dir = tree(files);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let registry = runtime().registry_for_roots(&[&root]).unwrap();
    let catalog = registry.snapshot();
    (dir, root, catalog)
}

#[test]
fn a_lowercase_skill_md_is_its_folders_document() {
    let text = skill_md("pdf", "Read PDF files");
    let (_dir, root, catalog) = catalog_of(&[("pdf/skill.md", text.as_bytes())]);
    let skill = catalog.get("pdf").expect("the folder is the skill");
    assert_eq!(skill.path, root.join("pdf/skill.md"));
    assert_eq!(skill.description(), Some("Read PDF files"));
    assert!(catalog.get("skill").is_none());
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
}

#[test]
fn skill_md_is_read_rather_than_a_lowercase_one_beside_it() {
    let upper = skill_md("pdf", "From SKILL.md");
    let lower = skill_md("pdf", "From skill.md");
    let (_dir, root, catalog) = catalog_of(&[
        ("pdf/SKILL.md", upper.as_bytes()),
        ("pdf/skill.md", lower.as_bytes()),
    ]);
    let skill = catalog.get("pdf").unwrap();
    assert_eq!(skill.path, root.join("pdf/SKILL.md"));
    assert_eq!(skill.description(), Some("From SKILL.md"));
    assert_eq!(catalog.skills.len(), 1);
}

#[test]
fn a_document_directly_in_a_root_is_not_a_flat_skill() {
    for name in ["SKILL.md", "skill.md"] {
        let text = skill_md("skill", "A document one level too high");
        let (_dir, root, catalog) = catalog_of(&[(name, text.as_bytes())]);
        assert!(catalog.skills.is_empty(), "{name}: {:?}", catalog.skills);
        let d = catalog
            .diagnostics
            .iter()
            .find(|d| Path::new(&d.path) == root.join(name))
            .expect("a diagnostic names the file");
        assert_eq!(d.severity, Severity::Warning);
        assert!(d.message.contains(&format!("a {name} directly in")), "{d}");
    }
}

#[test]
fn other_casings_are_never_read_as_the_document() {
    let text = skill_md("pdf", "Read PDF files");
    for name in ["Skill.md", "SKILL.MD"] {
        let (_dir, _root, catalog) = catalog_of(&[(&format!("pdf/{name}"), text.as_bytes())]);
        assert!(catalog.skills.is_empty(), "{name}: {:?}", catalog.skills);
    }
}

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
        registry.snapshot();
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

    /// The skill's document and description.
    fn pdf(&self) -> Option<(PathBuf, String)> {
        let catalog = self.registry.snapshot();
        let skill = catalog.get("pdf")?;
        let path = skill.path.as_path()?.to_path_buf();
        Some((path, skill.description()?.to_string()))
    }
}

#[test]
fn a_skill_md_added_beside_skill_md_takes_over_and_its_removal_gives_way_back() {
    let lower = skill_md("pdf", "Lowercase");
    let f = Fixture::new(&[("pdf/skill.md", lower.as_bytes())]);
    let lower_path = f.root.join("pdf/skill.md");
    let upper_path = f.root.join("pdf/SKILL.md");
    assert_eq!(f.pdf(), Some((lower_path.clone(), "Lowercase".into())));

    write(
        &f.root,
        "pdf/SKILL.md",
        skill_md("pdf", "Uppercase").as_bytes(),
    );
    f.change("pdf/SKILL.md", ChangeKind::Created);
    assert_eq!(f.pdf(), Some((upper_path.clone(), "Uppercase".into())));
    assert_eq!(
        f.registry.load("pdf").unwrap().skill.description(),
        Some("Uppercase")
    );

    std::fs::remove_file(&upper_path).unwrap();
    f.change("pdf/SKILL.md", ChangeKind::Removed);
    assert_eq!(f.pdf(), Some((lower_path.clone(), "Lowercase".into())));

    write(
        &f.root,
        "pdf/skill.md",
        skill_md("pdf", "Edited").as_bytes(),
    );
    f.change("pdf/skill.md", ChangeKind::Modified);
    assert_eq!(f.pdf(), Some((lower_path.clone(), "Edited".into())));
    assert_eq!(
        f.registry.load("pdf").unwrap().body,
        "# pdf\n\nBody of pdf.\n"
    );

    std::fs::remove_file(&lower_path).unwrap();
    f.change("pdf/skill.md", ChangeKind::Removed);
    assert_eq!(f.pdf(), None);
}

#[test]
fn a_blind_rescan_notices_a_new_skill_md_and_sends_nothing_when_nothing_changed() {
    let lower = skill_md("pdf", "Lowercase");
    let other = skill_md("other", "Other");
    let f = Fixture::new(&[
        ("pdf/skill.md", lower.as_bytes()),
        ("other/SKILL.md", other.as_bytes()),
    ]);
    f.registry.invalidate_provider(&f.provider);
    assert_eq!(f.pdf().map(|(_, d)| d).as_deref(), Some("Lowercase"));
    assert_eq!(
        f.provider.stats().last_received(),
        0,
        "re-reading an unchanged skill.md sends nothing"
    );
    // Without an event, only a read can tell that a SKILL.md appeared.
    write(
        &f.root,
        "pdf/SKILL.md",
        skill_md("pdf", "Uppercase").as_bytes(),
    );
    f.registry.invalidate_provider(&f.provider);
    assert_eq!(
        f.pdf(),
        Some((f.root.join("pdf/SKILL.md"), "Uppercase".into()))
    );
}

#[test]
fn a_linked_folder_with_a_lowercase_document_loads_and_stays_put() {
    let lower = skill_md("linked", "Through a link");
    let dir = tree(&[("elsewhere/linked/skill.md", lower.as_bytes())]);
    let base = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(base.join("root")).unwrap();
    std::os::unix::fs::symlink(base.join("elsewhere/linked"), base.join("root/linked")).unwrap();
    let registry = runtime().registry_for_roots(&[base.join("root")]).unwrap();
    let provider = registry.providers()[0].clone();
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("linked").and_then(|s| s.description()),
        Some("Through a link")
    );
    registry.invalidate_provider(&provider);
    registry.snapshot();
    assert_eq!(provider.stats().last_received(), 0, "nothing changed");
}

#[test]
fn a_mirror_publishes_a_lowercase_document_as_skill_md() {
    let dir = tree(&[
        ("pdf/skill.md", skill_md("pdf", "Read PDF files").as_bytes()),
        ("pdf/notes.txt", b"notes"),
    ]);
    let out = tree(&[]);
    skillhost_publish::mirror::write(&runtime(), &[dir.path().to_path_buf()], out.path()).unwrap();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("index.json")).unwrap()).unwrap();
    let uris: Vec<&str> = index["skills"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://pdf/SKILL.md", "skill://pdf/notes.txt"]);
    assert_eq!(
        std::fs::read(out.path().join("pdf/SKILL.md")).unwrap(),
        skill_md("pdf", "Read PDF files").as_bytes()
    );
    assert!(!out.path().join("pdf/skill.md").exists());
}

#[test]
fn a_display_name_or_a_prefixed_name_is_served_under_its_folder_and_kept_as_text() {
    let display = skill_md("API Fuzzing for Bug Bounty", "Fuzz APIs");
    let prefixed = skill_md("ckm:design-system", "Design tokens");
    let named = skill_md("nice-name", "Named apart from its folder");
    let (_dir, _root, catalog) = catalog_of(&[
        ("api-fuzzing-bug-bounty/SKILL.md", display.as_bytes()),
        ("design-system/SKILL.md", prefixed.as_bytes()),
        ("my-folder/SKILL.md", named.as_bytes()),
    ]);
    let fuzz = catalog
        .get("api-fuzzing-bug-bounty")
        .expect("served under its folder");
    assert_eq!(
        fuzz.frontmatter.display_name.as_deref(),
        Some("API Fuzzing for Bug Bounty")
    );
    let design = catalog.get("design-system").expect("served, not refused");
    assert_eq!(
        design.frontmatter.display_name.as_deref(),
        Some("ckm:design-system")
    );
    for (folder, declared) in [
        ("api-fuzzing-bug-bounty", "API Fuzzing for Bug Bounty"),
        ("design-system", "ckm:design-system"),
    ] {
        let warning = catalog
            .diagnostics
            .iter()
            .find(|d| d.path.contains(folder))
            .unwrap_or_else(|| panic!("a warning for {folder}: {:?}", catalog.diagnostics));
        assert_eq!(warning.severity, Severity::Warning);
        assert!(
            warning.message.contains(&format!("{declared:?}"))
                && warning.message.contains(&format!("served as {folder:?}")),
            "{warning}"
        );
    }
    // A skill is found by its folder as well as its name.
    assert_eq!(
        catalog.resolve("my-folder").map(|s| s.name()),
        Some("nice-name")
    );
    assert_eq!(catalog.skills.len(), 3);
}
