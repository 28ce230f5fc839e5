//! Both contract versions on one host: 0.2.0 (the first-party providers)
//! and the frozen 0.1.0 (the probe, written without the SDK), and what
//! 0.2.0 added — the provider's own frontmatter JSON, frontmatter-only
//! reads, ranged reads and the manifest.

use skillhost::provider::direct::DirectInstance;
use skillhost::provider::sources::local;
use skillhost::sandbox::{RootNeed, manifest::manifest};
use skillhost::{Registry, Scope};
use skillhost_tests::{PROBE_GUEST, runtime, skill_md, tree, write};

#[test]
fn each_component_runs_the_version_it_was_built_for() {
    let runtime = runtime();
    let local = runtime.local_component().unwrap();
    assert_eq!(local.contract().version, "0.2.0");
    assert_eq!(
        runtime.bundled_component().unwrap().contract().version,
        "0.2.0"
    );
    assert_eq!(
        runtime.remote_component().unwrap().contract().version,
        "0.2.0"
    );
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
fn a_0_1_0_and_a_0_2_0_component_serve_side_by_side_in_one_registry() {
    let old_tree = tree(&[
        (
            "old-one/SKILL.md",
            skill_md("old-one", "Served by 0.1.0").as_bytes(),
        ),
        (
            "shared/SKILL.md",
            skill_md("shared", "The 0.1.0 copy").as_bytes(),
        ),
    ]);
    let new_tree = tree(&[
        (
            "new-one/SKILL.md",
            skill_md("new-one", "Served by 0.2.0").as_bytes(),
        ),
        (
            "shared/SKILL.md",
            skill_md("shared", "The 0.2.0 copy").as_bytes(),
        ),
    ]);
    let runtime = runtime();
    let probe = skillhost_tests::provider_of(
        &runtime,
        "probe-tree",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![old_tree.path().to_path_buf()],
        &[("serve", "tree")],
        skillhost::sandbox::Limits::default(),
    );
    let local = runtime.local_provider(new_tree.path()).unwrap();
    let registry = Registry::new();
    // The 0.2.0 provider first: it wins the name both serve.
    registry.add(local.clone()).unwrap();
    registry.add(probe.clone()).unwrap();
    let catalog = registry.snapshot();
    let described = |name: &str| {
        catalog
            .get(name)
            .and_then(|s| s.description())
            .map(str::to_string)
    };
    assert_eq!(described("old-one").as_deref(), Some("Served by 0.1.0"));
    assert_eq!(described("new-one").as_deref(), Some("Served by 0.2.0"));
    assert_eq!(described("shared").as_deref(), Some("The 0.2.0 copy"));
    let shared = catalog.get("shared").unwrap();
    assert_eq!(shared.source, local.id());
    assert_eq!(catalog.get("old-one").unwrap().source, probe.id());
    // Each answers calls in its own version, in the same process.
    assert!(
        registry
            .load("old-one")
            .unwrap()
            .body
            .contains("Body of old-one")
    );
    assert!(
        registry
            .load("new-one")
            .unwrap()
            .body
            .contains("Body of new-one")
    );
    let old_json = catalog.get("old-one").unwrap().frontmatter_json();
    let new_json = catalog.get("new-one").unwrap().frontmatter_json();
    assert_eq!(old_json["description"], "Served by 0.1.0");
    assert_eq!(new_json["description"], "Served by 0.2.0");

    // Both follow changes: the old one invalidated from outside, the new one
    // told of the edit.
    write(
        old_tree.path(),
        "old-two/SKILL.md",
        skill_md("old-two", "Later, 0.1.0").as_bytes(),
    );
    registry.invalidate_provider(&probe);
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
        catalog.get("old-two").and_then(|s| s.description()),
        Some("Later, 0.1.0")
    );
    assert_eq!(
        catalog.get("new-one").and_then(|s| s.description()),
        Some("Edited")
    );
}
