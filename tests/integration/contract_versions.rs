//! Every contract version on one host: 0.3.0 (the first-party providers,
//! through the SDK), the frozen 0.2.0 (`tests/guests/v0-2`) and the frozen
//! 0.1.0 (the probe), both written without the SDK; and what later
//! versions added — the provider's own frontmatter JSON, fields the host
//! derives from it, frontmatter-only reads, ranged reads and the manifest.

use skillhost::provider::direct::DirectInstance;
use skillhost::provider::sources::local;
use skillhost::sandbox::{RootNeed, manifest::manifest};
use skillhost::{Registry, Scope};
use skillhost_tests::{PROBE_GUEST, V0_2_GUEST, runtime, skill_md, tree, write};

#[test]
fn each_component_runs_the_version_it_was_built_for() {
    let runtime = runtime();
    let local = runtime.local_component().unwrap();
    assert_eq!(local.contract().version, "0.3.0");
    assert_eq!(
        runtime.bundled_component().unwrap().contract().version,
        "0.3.0"
    );
    assert_eq!(
        runtime.remote_component().unwrap().contract().version,
        "0.3.0"
    );
    let old = runtime.load_component(V0_2_GUEST).unwrap();
    assert_eq!(old.contract().version, "0.2.0");
    let probe = runtime.load_component(PROBE_GUEST).unwrap();
    assert_eq!(probe.contract().version, "0.1.0");
}

#[test]
fn first_party_providers_declare_what_they_want_and_a_0_1_0_component_declares_nothing() {
    let runtime = runtime();
    let engine = runtime.engine();
    let local = manifest(engine, &runtime.local_component().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(local.roots, RootNeed::Required);
    assert!(local.origins.is_empty());
    let bundled = manifest(engine, &runtime.bundled_component().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(bundled.roots, RootNeed::None);
    let remote = manifest(engine, &runtime.remote_component().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(remote.origins, ["*"]);
    let url = remote.settings.iter().find(|s| s.key == "url").unwrap();
    assert!(url.required);
    let old = manifest(engine, &runtime.load_component(V0_2_GUEST).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(old.roots, RootNeed::Required);
    let probe = runtime.load_component(PROBE_GUEST).unwrap();
    assert_eq!(manifest(engine, &probe).unwrap(), None);
}

#[test]
fn the_catalog_shows_the_frontmatter_json_the_provider_made() {
    let doc = "---\nname: rich\ndescription: d\nmetadata:\n  level: 3\n  tags: [a, b]\nx-custom: true\n---\nbody\n";
    let dir = tree(&[("rich/SKILL.md", doc.as_bytes())]);
    let registry = runtime().registry_for_roots(&[dir.path()]).unwrap();
    let catalog = registry.snapshot();
    let skill = catalog.get("rich").unwrap();
    // It came across as JSON: the host parsed no YAML to show it.
    assert!(skill.json.is_some());
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({"name": "rich", "description": "d", "metadata": {"level": 3, "tags": ["a", "b"]}, "x-custom": true})
    );
    assert_eq!(
        skill.frontmatter_json(),
        skillhost_skill::json::frontmatter_json(&skill.frontmatter.raw)
    );
}

#[test]
fn a_snapshot_copies_no_body_into_guest_memory() {
    // 96 skills with half a MiB of body each: read whole, one batch of 64
    // alone would need 32 MiB of guest memory.
    let dir = tempfile::tempdir().unwrap();
    let body = "lorem ipsum dolor sit amet\n".repeat(20_000);
    for i in 0..96 {
        let name = format!("big-{i:02}");
        let text = format!("{}{body}", skill_md(&name, "a skill with a long body"));
        write(dir.path(), &format!("{name}/SKILL.md"), text.as_bytes());
    }
    let runtime = runtime();
    let spec = local::spec(runtime.local_component().unwrap(), dir.path(), Scope::User);
    let mut instance = DirectInstance::start(runtime.engine(), spec).unwrap();
    let observed = instance.snapshot(None, false).unwrap();
    let valid = observed
        .entries
        .iter()
        .filter(|e| e.verdict.is_ok())
        .count();
    assert_eq!(valid, 96);
    let memory = instance.memory_bytes().unwrap();
    assert!(
        memory < 16 << 20,
        "the guest grew to {memory} bytes for 96 frontmatters"
    );
    // Loading still reads the whole document, body and all.
    let doc = instance.load("big-07").unwrap();
    assert!(doc.body.len() > body.len());
}

#[test]
fn a_large_file_is_read_in_parts_by_range() {
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let dir = tree(&[
        (
            "parts/SKILL.md",
            skill_md("parts", "has a big file").as_bytes(),
        ),
        ("parts/references/big.bin", &big),
    ]);
    let runtime = runtime();
    let provider = runtime.local_provider(dir.path()).unwrap();
    let registry = Registry::new();
    registry.add(provider.clone()).unwrap();
    assert!(registry.snapshot().get("parts").is_some());
    let mut joined = Vec::new();
    for offset in (0..big.len() as u64).step_by(64 * 1024) {
        let part = provider
            .read_resource_range("parts", "references/big.bin", offset, 64 * 1024)
            .unwrap();
        assert!(part.len() <= 64 * 1024);
        joined.extend_from_slice(&part);
    }
    assert_eq!(joined, big);
    let past = provider
        .read_resource_range("parts", "references/big.bin", big.len() as u64 + 10, 100)
        .unwrap();
    assert!(past.is_empty());
    let escape = provider.read_resource_range("parts", "../outside", 0, 10);
    assert!(escape.is_err());
}

#[test]
fn components_of_all_three_versions_serve_side_by_side_in_one_registry() {
    let oldest_tree = tree(&[
        (
            "oldest-one/SKILL.md",
            skill_md("oldest-one", "Served by 0.1.0").as_bytes(),
        ),
        (
            "shared/SKILL.md",
            skill_md("shared", "The 0.1.0 copy").as_bytes(),
        ),
    ]);
    let old_tree = tree(&[
        (
            "old-one/SKILL.md",
            b"---\nname: old-one\ndescription: Served by 0.2.0\nallowed-tools: Read Grep\n---\nBody of old-one.\n",
        ),
        (
            "shared/SKILL.md",
            skill_md("shared", "The 0.2.0 copy").as_bytes(),
        ),
    ]);
    let new_tree = tree(&[
        (
            "new-one/SKILL.md",
            skill_md("new-one", "Served by 0.3.0").as_bytes(),
        ),
        (
            "shared/SKILL.md",
            skill_md("shared", "The 0.3.0 copy").as_bytes(),
        ),
    ]);
    let runtime = runtime();
    let probe = skillhost_tests::provider_of(
        &runtime,
        "probe-tree",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![oldest_tree.path().to_path_buf()],
        &[("serve", "tree")],
        skillhost::sandbox::Limits::default(),
    );
    let old = skillhost_tests::provider_of(
        &runtime,
        "v0-2",
        runtime.load_component(V0_2_GUEST).unwrap(),
        vec![old_tree.path().to_path_buf()],
        &[],
        skillhost::sandbox::Limits::default(),
    );
    let local = runtime.local_provider(new_tree.path()).unwrap();
    let registry = Registry::new();
    // The 0.3.0 provider first: it wins the name all three serve.
    registry.add(local.clone()).unwrap();
    registry.add(old.clone()).unwrap();
    registry.add(probe.clone()).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    let described = |name: &str| {
        catalog
            .get(name)
            .and_then(|s| s.description())
            .map(str::to_string)
    };
    assert_eq!(described("oldest-one").as_deref(), Some("Served by 0.1.0"));
    assert_eq!(described("old-one").as_deref(), Some("Served by 0.2.0"));
    assert_eq!(described("new-one").as_deref(), Some("Served by 0.3.0"));
    assert_eq!(described("shared").as_deref(), Some("The 0.3.0 copy"));
    assert_eq!(catalog.get("shared").unwrap().source, local.id());
    assert_eq!(catalog.get("old-one").unwrap().source, old.id());
    assert_eq!(catalog.get("oldest-one").unwrap().source, probe.id());
    // The 0.2.0 component's typed fields came through as given (the half it
    // sent ahead with emit-skills too).
    assert_eq!(
        catalog.get("old-one").unwrap().frontmatter.allowed_tools,
        ["Read", "Grep"]
    );
    // Each answers calls in its own version, in the same process.
    for name in ["oldest-one", "old-one", "new-one"] {
        let body = registry.load(name).unwrap().body;
        assert!(body.contains(&format!("Body of {name}")), "{name}: {body}");
    }
    for (name, version) in [
        ("oldest-one", "0.1.0"),
        ("old-one", "0.2.0"),
        ("new-one", "0.3.0"),
    ] {
        let json = catalog.get(name).unwrap().frontmatter_json();
        assert_eq!(
            json["description"],
            format!("Served by {version}"),
            "{name}"
        );
    }

    // All follow changes: the old ones invalidated from outside, the new one
    // told of the edit.
    write(
        oldest_tree.path(),
        "oldest-two/SKILL.md",
        skill_md("oldest-two", "Later, 0.1.0").as_bytes(),
    );
    write(
        old_tree.path(),
        "old-two/SKILL.md",
        skill_md("old-two", "Later, 0.2.0").as_bytes(),
    );
    registry.invalidate_provider(&probe);
    registry.invalidate_provider(&old);
    let doc = new_tree.path().join("new-one/SKILL.md");
    write(
        new_tree.path(),
        "new-one/SKILL.md",
        skill_md("new-one", "Edited").as_bytes(),
    );
    local
        .on_change(&[(
            std::fs::canonicalize(&doc).unwrap(),
            skillhost::provider::ChangeKind::Modified,
        )])
        .unwrap();
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("oldest-two").and_then(|s| s.description()),
        Some("Later, 0.1.0")
    );
    assert_eq!(
        catalog.get("old-two").and_then(|s| s.description()),
        Some("Later, 0.2.0")
    );
    assert_eq!(
        catalog.get("new-one").and_then(|s| s.description()),
        Some("Edited")
    );
}

#[test]
fn a_0_2_0_components_typed_fields_are_kept_as_given_not_rederived() {
    // Its typed description says one thing, its JSON another: a 0.2.0
    // component served what its typed fields say, and still does.
    let dir = tree(&[(
        "typed/SKILL.md",
        skill_md("typed", "What the YAML says").as_bytes(),
    )]);
    let runtime = runtime();
    let old = skillhost_tests::provider_of(
        &runtime,
        "v0-2",
        runtime.load_component(V0_2_GUEST).unwrap(),
        vec![dir.path().to_path_buf()],
        &[("description", "What the typed field says")],
        skillhost::sandbox::Limits::default(),
    );
    let registry = Registry::new();
    registry.add(old).unwrap();
    let catalog = registry.snapshot();
    let skill = catalog.get("typed").unwrap();
    assert_eq!(skill.description(), Some("What the typed field says"));
    assert_eq!(
        skill.frontmatter_json()["description"],
        "What the YAML says"
    );
}

#[test]
fn a_0_3_0_providers_fields_and_their_warnings_come_from_the_hosts_rules() {
    // The local provider (0.3.0) sends only JSON: the host expands braces,
    // splits a one-string list, and warns about a value of the wrong shape.
    let doc = "---\nname: ruled\ndescription: d\nallowed-tools: Read, Bash(git diff:*)\n\
               paths: \"src/**/*.{ts,tsx}\"\ncontext: sideways\n---\nbody\n";
    let dir = tree(&[("ruled/SKILL.md", doc.as_bytes())]);
    let registry = runtime().registry_for_roots(&[dir.path()]).unwrap();
    let catalog = registry.snapshot();
    let skill = catalog.get("ruled").unwrap();
    assert_eq!(
        skill.frontmatter.allowed_tools,
        ["Read", "Bash(git diff:*)"]
    );
    assert_eq!(skill.frontmatter.paths, ["src/**/*.ts", "src/**/*.tsx"]);
    let warning = catalog
        .diagnostics
        .iter()
        .find(|d| d.field.as_deref() == Some("context"))
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert!(
        warning.message.contains("must be inline or fork"),
        "{warning:?}"
    );
    assert!(warning.path.ends_with("ruled/SKILL.md"), "{}", warning.path);
}
