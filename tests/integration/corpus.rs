//! The 14 real skills of obra/superpowers, served through the sandboxed local
//! provider, against an expected file reviewed with an independent YAML
//! parser (PyYAML).

use serde_json::Value;
use sha2::{Digest, Sha256};
use skillhost_tests::{corpus, runtime, workspace};
use std::path::PathBuf;

fn expected() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(workspace().join("tests/expected/superpowers.json"))
        .expect("the reviewed expected file");
    let value: Value = serde_json::from_str(&text).expect("valid JSON");
    value["skills"]
        .as_array()
        .expect("a skills list")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["description"].as_str().unwrap_or_default().to_string(),
                s["folder"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn canonical_corpus() -> PathBuf {
    std::fs::canonicalize(corpus()).expect("the corpus exists beside the project")
}

#[test]
fn every_corpus_skill_is_listed_with_its_reviewed_name_and_description() {
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[corpus()]).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete);
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    let got: Vec<(String, String, String)> = catalog
        .skills
        .iter()
        .map(|s| {
            let folder = s.base.file_name().unwrap().to_string();
            (
                s.name().to_string(),
                s.description().unwrap_or_default().to_string(),
                folder,
            )
        })
        .collect();
    assert_eq!(got, expected());
    let root = canonical_corpus();
    for skill in &catalog.skills {
        assert_eq!(
            skill.path,
            root.join(skill.base.file_name().unwrap()).join("SKILL.md")
        );
        assert_eq!(skill.source, format!("local:{}", corpus_root_id()));
    }
}

fn corpus_root_id() -> String {
    skillhost::paths::absolute(&corpus()).display().to_string()
}

#[test]
fn every_corpus_skill_loads_with_the_body_after_its_frontmatter() {
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[corpus()]).unwrap();
    for (name, description, folder) in expected() {
        let doc = registry.load(&name).unwrap();
        assert_eq!(doc.skill.name(), name);
        assert_eq!(doc.skill.description(), Some(description.as_str()));
        let text =
            std::fs::read_to_string(canonical_corpus().join(&folder).join("SKILL.md")).unwrap();
        let after_open = text.strip_prefix("---\n").unwrap();
        let close = after_open.find("\n---\n").unwrap();
        assert_eq!(doc.body, &after_open[close + 5..], "{name}");
        assert!(!doc.body.is_empty());
        assert!(doc.skill.frontmatter.raw.contains(&format!("name: {name}")));
    }
}

#[test]
fn resources_list_every_file_of_a_skill_with_size_and_sha256() {
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[corpus()]).unwrap();
    let listed = registry.list_resources("systematic-debugging").unwrap();
    let folder = canonical_corpus().join("systematic-debugging");
    let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        listed.iter().map(|r| r.path.clone()).collect::<Vec<_>>(),
        on_disk
    );
    for resource in &listed {
        let bytes = std::fs::read(folder.join(&resource.path)).unwrap();
        assert_eq!(resource.size, bytes.len() as u64);
        let hex: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(resource.digest, format!("sha256:{hex}"));
    }
    let nested = registry.list_resources("using-superpowers").unwrap();
    assert!(
        nested.iter().any(|r| r.path == "references/codex-tools.md"),
        "{nested:?}"
    );
}

#[test]
fn a_resource_is_read_inside_its_skill_and_never_outside() {
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[corpus()]).unwrap();
    let bytes = registry
        .read_resource("using-superpowers", "references/codex-tools.md")
        .unwrap();
    let expected =
        std::fs::read(canonical_corpus().join("using-superpowers/references/codex-tools.md"))
            .unwrap();
    assert_eq!(bytes, expected);
    for escape in [
        "../brainstorming/SKILL.md",
        "/etc/passwd",
        "references/../../x",
        "",
    ] {
        let err = registry
            .read_resource("using-superpowers", escape)
            .unwrap_err();
        assert!(
            err.to_string().contains("not a relative path"),
            "{escape}: {err}"
        );
    }
}
