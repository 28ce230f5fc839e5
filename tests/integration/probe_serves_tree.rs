//! The probe guest with `serve = tree` (a `skillhost:provider@0.1.0`
//! component written without the guest SDK) against the first-party local
//! provider on the same tree: the same skills, frontmatter, bodies, files
//! and diagnostics. An old component built from the frozen WIT keeps
//! serving what the current providers serve.

use skillhost::error::{Error, ProviderErrorKind};
use skillhost::sandbox::{FaultKind, Limits};
use skillhost::{Provider, Runtime};
use skillhost_tests::{PROBE_GUEST, corpus, provider_of, runtime, skill_md, tree, write};
use std::path::Path;
use std::sync::Arc;

/// Every field the parser knows, a list written both ways, braces to
/// expand, a metadata map and a field it does not know.
const FULL: &str = "---\n\
name: alpha\n\
description: >\n  Every field,\n  folded\n\
when_to_use: When a test needs all of them\n\
argument-hint: \"[file]\"\n\
context: fork\n\
model: sonnet\n\
effort: high\n\
allowed-tools:\n  - Read\n  - Bash(git:*)\n\
user-invocable: \"false\"\n\
disable-model-invocation: true\n\
paths: src/**/*.{rs,toml}, docs/*.md\n\
aliases: [first, a-one]\n\
version: 1.2\n\
agent: reviewer\n\
pinned: true\n\
license: MIT\n\
compatibility: Needs git\n\
metadata:\n  owner: tests\n  level: 3\n\
unknown-field: kept verbatim\n\
---\n# Alpha\n\nUse every field.\n";

/// A few bundles with files in subfolders, one folder naming its skill
/// otherwise, one read through its lowercase `skill.md`, one without a
/// description (a warning), and two that cannot be used (errors).
fn skills_tree() -> tempfile::TempDir {
    tree(&[
        ("alpha/SKILL.md", FULL.as_bytes()),
        ("alpha/references/guide.md", b"# Guide\n"),
        ("alpha/references/deep/notes.txt", b"deeper\n"),
        ("alpha/scripts/run.sh", b"#!/bin/sh\necho run\n"),
        ("beta/SKILL.md", skill_md("beta", "The second").as_bytes()),
        ("beta/references/api.md", b"# API\n"),
        (
            "folder-of-gamma/SKILL.md",
            skill_md("gamma", "Named in its frontmatter").as_bytes(),
        ),
        (
            "lower/skill.md",
            skill_md("lower", "Lowercase document").as_bytes(),
        ),
        (
            "quiet/SKILL.md",
            b"---\nname: quiet\n---\nNo description.\n",
        ),
        ("broken/SKILL.md", b"---\nname: [unclosed\n---\nBody\n"),
        ("garbled/SKILL.md", b"---\nname: garbled\n---\n\xff\xfe\n"),
        ("empty-folder/notes.txt", b"not a skill\n"),
        ("README.md", b"# Skills\n\nNot a skill: no frontmatter.\n"),
    ])
}

fn probe_over(runtime: &Runtime, root: &Path, extra: &[(&str, &str)]) -> Arc<Provider> {
    let mut settings = vec![("serve", "tree")];
    settings.extend_from_slice(extra);
    provider_of(
        runtime,
        "probe-tree",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![root.to_path_buf()],
        &settings,
        Limits::default(),
    )
}

/// A diagnostic without the provider that reported it.
fn diagnostics(provider: &Provider) -> Vec<String> {
    let (view, _) = provider.view();
    let mut out: Vec<String> = view
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{:?} {} line {:?} field {:?}: {}",
                d.severity, d.path, d.line, d.field, d.message
            )
        })
        .collect();
    out.sort();
    out
}

/// Asserts that both providers serve the same skills from `root`, and
/// returns their names.
fn assert_same_service(probe: &Provider, local: &Provider, root: &Path) -> Vec<String> {
    let (by_probe, _) = probe.view();
    let (by_local, _) = local.view();
    assert!(by_probe.complete, "{:?}", by_probe.diagnostics);
    assert!(by_local.complete, "{:?}", by_local.diagnostics);
    let names = |view: &skillhost::provider::ProviderView| {
        let mut names: Vec<String> = view.skills.iter().map(|s| s.name().to_string()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&by_probe), names(&by_local));
    assert_eq!(diagnostics(probe), diagnostics(local));
    for theirs in &by_local.skills {
        let name = theirs.name();
        let ours = by_probe
            .skills
            .iter()
            .find(|s| s.name() == name)
            .unwrap_or_else(|| panic!("the probe lists {name}"));
        assert_eq!(ours.description(), theirs.description(), "{name}");
        assert_eq!(ours.path.to_string(), theirs.path.to_string(), "{name}");
        assert_eq!(ours.base.to_string(), theirs.base.to_string(), "{name}");
        assert_eq!(ours.frontmatter, theirs.frontmatter, "{name}");
        assert_eq!(ours.frontmatter_json(), theirs.frontmatter_json(), "{name}");

        let loaded = probe.load(name).unwrap();
        let expected = local.load(name).unwrap();
        assert_eq!(loaded.body, expected.body, "{name}");
        assert_eq!(
            loaded.skill.frontmatter, expected.skill.frontmatter,
            "{name}"
        );
        assert_eq!(loaded.skill.path.to_string(), theirs.path.to_string());

        let files = probe.list_resources(name).unwrap();
        assert_eq!(files, local.list_resources(name).unwrap(), "{name}");
        assert!(!files.is_empty(), "{name} lists at least its document");
        let folder = root.join(theirs.base.file_name().unwrap());
        for file in &files {
            let bytes = std::fs::read(folder.join(&file.path)).unwrap();
            assert_eq!(file.size, bytes.len() as u64, "{name}/{}", file.path);
            assert_eq!(file.digest, skillhost_skill::digest::sha256(&bytes));
            assert_eq!(probe.read_resource(name, &file.path).unwrap(), bytes);
        }
    }
    names(&by_probe)
}

#[test]
fn the_probe_serving_a_tree_lists_loads_and_digests_what_the_local_provider_does() {
    let dir = skills_tree();
    let runtime = runtime();
    let probe = probe_over(&runtime, dir.path(), &[]);
    let local = runtime.local_provider(dir.path()).unwrap();
    let names = assert_same_service(&probe, &local, dir.path());
    assert_eq!(names, ["alpha", "beta", "gamma", "lower", "quiet"]);

    // The comparison covered what the tree was built to show.
    let (view, _) = probe.view();
    let alpha = view.skills.iter().find(|s| s.name() == "alpha").unwrap();
    assert_eq!(alpha.frontmatter_json()["unknown-field"], "kept verbatim");
    assert_eq!(alpha.frontmatter.paths.len(), 3, "braces expanded");
    assert!(!alpha.frontmatter.user_invocable);
    let listed: Vec<String> = probe
        .list_resources("alpha")
        .unwrap()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(
        listed,
        [
            "SKILL.md",
            "references/deep/notes.txt",
            "references/guide.md",
            "scripts/run.sh"
        ]
    );
    let found = diagnostics(&probe);
    for bad in ["broken/SKILL.md", "garbled/SKILL.md"] {
        assert!(
            found
                .iter()
                .any(|d| d.starts_with("Error") && d.contains(bad)),
            "{bad}: {found:?}"
        );
    }
    assert!(
        found
            .iter()
            .any(|d| d.starts_with("Warning") && d.contains("quiet/SKILL.md")),
        "{found:?}"
    );
}

#[test]
fn the_probe_serving_the_vendored_corpus_matches_the_local_provider() {
    let runtime = runtime();
    let root = std::fs::canonicalize(corpus()).unwrap();
    let probe = probe_over(&runtime, &root, &[]);
    let local = runtime.local_provider(&root).unwrap();
    assert_eq!(assert_same_service(&probe, &local, &root).len(), 14);
}

#[test]
fn a_skill_that_now_declares_another_name_is_refused_by_the_probe_as_by_the_local_provider() {
    let dir = skills_tree();
    let runtime = runtime();
    let probe = probe_over(&runtime, dir.path(), &[]);
    let local = runtime.local_provider(dir.path()).unwrap();
    probe.view();
    local.view();
    write(
        dir.path(),
        "beta/SKILL.md",
        skill_md("delta", "Renamed").as_bytes(),
    );
    for provider in [&probe, &local] {
        match provider.load("beta") {
            Err(Error::Provider { kind, .. }) => assert_eq!(kind, ProviderErrorKind::NameMismatch),
            other => panic!("expected a name mismatch, got {other:?}"),
        }
    }
    // Both were invalidated and list the new name.
    for provider in [&probe, &local] {
        let (view, _) = provider.view();
        assert!(view.skills.iter().any(|s| s.name() == "delta"));
        assert!(!view.skills.iter().any(|s| s.name() == "beta"));
    }
}

#[test]
fn a_path_leaving_the_skill_is_refused_and_a_missing_file_is_not_found() {
    let dir = skills_tree();
    let runtime = runtime();
    let probe = probe_over(&runtime, dir.path(), &[]);
    for escape in [
        "../beta/SKILL.md",
        "/etc/hostname",
        "references/../../beta/SKILL.md",
    ] {
        match probe.read_resource("alpha", escape) {
            Err(Error::Provider { kind, .. }) => {
                assert_eq!(kind, ProviderErrorKind::Invalid, "{escape}")
            }
            other => panic!("{escape}: expected a refusal, got {other:?}"),
        }
    }
    match probe.read_resource("alpha", "references/absent.md") {
        Err(Error::Provider { kind, .. }) => assert_eq!(kind, ProviderErrorKind::NotFound),
        other => panic!("expected not found, got {other:?}"),
    }
}

#[test]
fn misbehaviour_settings_still_apply_while_the_probe_serves_a_tree() {
    let dir = skills_tree();
    let runtime = runtime();
    let probe = probe_over(&runtime, dir.path(), &[("trap", "list-resources")]);
    let (view, _) = probe.view();
    assert!(view.complete, "{:?}", view.diagnostics);
    assert_eq!(
        probe.load("beta").unwrap().body,
        "# beta\n\nBody of beta.\n"
    );
    match probe.list_resources("beta") {
        Err(Error::Fault { fault, .. }) => assert_eq!(fault.kind, FaultKind::Trap),
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn the_probe_serving_a_tree_passes_the_conformance_kit_over_that_tree() {
    let dir = skills_tree();
    let options = skillhost_conformance::Options {
        cache_dir: Some(skillhost_tests::shared_cache_dir()),
        ..skillhost_conformance::Options::default()
    }
    .root(dir.path())
    .setting("serve", "tree");
    let report =
        skillhost_conformance::check_bytes(Path::new("probe.wasm"), PROBE_GUEST, options).unwrap();
    eprintln!("{}", report.text());
    report.assert_passed();
    let resources = &report.get("resources").unwrap().detail;
    assert!(resources.contains("of 5 skills"), "{resources}");
}
