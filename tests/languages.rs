//! Providers written in Python (componentize-py) and JavaScript
//! (componentize-js), built from source with their own toolchains, served
//! by the same host as a Rust provider: through the conformance kit, a
//! registry, and bad input of every kind, each contained and named.

use skillhost::sandbox::{Limits, Refused};
use skillhost::{Location, Registry, Scope};
use skillhost_conformance::{Options, Status, check};
use skillhost_tests::languages::{js_example, python_example, python_hostile};
use skillhost_tests::nginx::Nginx;
use skillhost_tests::{provider_of, runtime, shared_cache_dir, skill_md, tree};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn kit() -> Options {
    Options {
        cache_dir: Some(shared_cache_dir()),
        ..Options::default()
    }
}

fn component(
    runtime: &skillhost::Runtime,
    path: &Path,
) -> Arc<skillhost::sandbox::LoadedComponent> {
    runtime
        .load_component(&std::fs::read(path).unwrap())
        .unwrap()
}

/// How many times nginx answered for `skills.json`, counting every request
/// it finished before this call.
fn served(nginx: &Nginx) -> usize {
    nginx
        .settled()
        .iter()
        .filter(|l| l.path == "/skills.json")
        .count()
}

/// A folder served by nginx holding `skills.json` for the JS example.
fn skills_server() -> (tempfile::TempDir, Nginx) {
    let listing = serde_json::json!({"skills": [
        {"name": "js-weather", "frontmatter": {"description": "Reads the weather", "allowed-tools": "WebFetch"},
         "body": "Fetch the forecast.\n"},
        {"name": "js-notes", "frontmatter": {"description": "Takes notes", "paths": "notes/*.{md,txt}"},
         "body": "Write it down.\n"},
    ]});
    let dir = tree(&[("skills.json", listing.to_string().as_bytes())]);
    let nginx = Nginx::serve(dir.path());
    (dir, nginx)
}

#[test]
fn the_python_example_passes_the_kit_on_what_it_serves() {
    let report = check(python_example(), kit()).unwrap();
    report.assert_passed();
    let fixture = report.get("fixture-snapshot").unwrap();
    assert_eq!(fixture.status, Status::Skip);
    assert!(fixture.detail.contains("roots: none"), "{}", fixture.detail);
    for id in [
        "snapshot",
        "boundary",
        "load",
        "resources",
        "observe",
        "delta",
    ] {
        assert_eq!(
            report.get(id).unwrap().status,
            Status::Pass,
            "{id}: {}",
            report.text()
        );
    }
}

#[test]
fn the_js_example_passes_the_kit_fetching_from_its_granted_origin() {
    let (_dir, nginx) = skills_server();
    let options = Options {
        origins: vec![nginx.origin()],
        ..kit()
    }
    .setting("url", &format!("{}skills.json", nginx.url()));
    let report = check(js_example(), options).unwrap();
    report.assert_passed();
    for id in [
        "snapshot",
        "boundary",
        "load",
        "resources",
        "observe",
        "delta",
    ] {
        assert_eq!(
            report.get(id).unwrap().status,
            Status::Pass,
            "{id}: {}",
            report.text()
        );
    }
    assert!(!nginx.logged("/skills.json", 1).is_empty());
}

#[test]
fn a_python_provider_lists_loads_and_reads_skills_in_its_own_namespace() {
    let runtime = runtime();
    let py = provider_of(
        &runtime,
        "py",
        component(&runtime, &python_example()),
        Vec::new(),
        &[],
        Limits::default(),
    );
    let registry = Registry::new();
    registry.add(py.clone()).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    let greeting = catalog.get("py-greeting").unwrap();
    assert_eq!(greeting.path.to_string(), "py:py-greeting/SKILL.md");
    assert_eq!(greeting.path.as_path(), None, "never a file on the host");
    assert_eq!(greeting.description(), Some("Greets the user warmly"));
    // The host derived the fields from the provider's JSON: one string of
    // tools became a list.
    assert_eq!(greeting.frontmatter.allowed_tools, ["Read"]);
    let farewell = catalog.get("py-farewell").unwrap();
    assert_eq!(
        farewell.frontmatter.when_to_use.as_deref(),
        Some("The user is leaving")
    );
    assert_eq!(registry.load("py-greeting").unwrap().body, "Say hello.\n");
    let files = py.list_resources("py-greeting").unwrap();
    assert_eq!(files.len(), 1);
    let bytes = py.read_resource("py-greeting", "SKILL.md").unwrap();
    assert!(skillhost_skill::digest::matches(&bytes, &files[0].digest));
    // CPython reads its (empty) environment at start: the contract working,
    // noted with a count, and no warning in the catalog.
    assert!(
        !catalog
            .diagnostics
            .iter()
            .any(|d| d.message.contains("environment")),
        "{:?}",
        catalog.diagnostics
    );
    let noted = py.refusal_counts();
    let environment = noted.iter().find(|r| r.kind == Refused::Environment);
    assert!(environment.is_some_and(|r| r.count >= 1), "{noted:?}");
}

#[test]
fn a_js_provider_reaches_only_its_granted_origin() {
    let (_dir, nginx) = skills_server();
    let url = format!("{}skills.json", nginx.url());
    let runtime = runtime();
    let granted = runtime.provider(skillhost::ProviderSpec {
        origins: vec![nginx.origin()],
        settings: vec![("url".into(), url.clone())],
        ..skillhost::ProviderSpec::new("js", Scope::User, component(&runtime, &js_example()))
    });
    let registry = Registry::new();
    registry.add(granted.clone()).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    let notes = catalog.get("js-notes").unwrap();
    assert_eq!(notes.path.to_string(), "js:js-notes/SKILL.md");
    assert_eq!(notes.frontmatter.paths, ["notes/*.md", "notes/*.txt"]);
    assert_eq!(
        registry.load("js-weather").unwrap().body,
        "Fetch the forecast.\n"
    );
    let fetched = served(&nginx);
    assert!(fetched >= 1);

    // The same component without the origin granted: refused, named, and
    // nginx never hears of it.
    let refused = runtime.provider(skillhost::ProviderSpec {
        settings: vec![("url".into(), url)],
        ..skillhost::ProviderSpec::new(
            "js-ungranted",
            Scope::User,
            component(&runtime, &js_example()),
        )
    });
    let registry = Registry::new();
    registry.add(refused.clone()).unwrap();
    let catalog = registry.snapshot();
    assert!(!catalog.complete);
    assert!(catalog.skills.is_empty());
    let warning = catalog
        .diagnostics
        .iter()
        .find(|d| d.message.contains("that origin is not granted"))
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert_eq!(warning.source.as_deref(), Some("js-ungranted"));
    assert_eq!(
        served(&nginx),
        fetched,
        "the ungranted provider reached nginx"
    );
}

/// A registry holding a local root and the hostile Python guest armed with
/// `attack` from its second snapshot on.
struct Arena {
    registry: Registry,
    _root: tempfile::TempDir,
}

fn arena(attack: &str, limits: Limits) -> Arena {
    let root = tree(&[(
        "local-one/SKILL.md",
        skill_md("local-one", "A local skill").as_bytes(),
    )]);
    let runtime = runtime();
    let hostile = provider_of(
        &runtime,
        "py-hostile",
        component(&runtime, &python_hostile()),
        Vec::new(),
        &[("attack", attack), ("from", "2")],
        limits,
    );
    let registry = Registry::new();
    registry
        .add(runtime.local_provider(root.path()).unwrap())
        .unwrap();
    registry.add(hostile.clone()).unwrap();
    let first = registry.snapshot();
    assert!(first.complete, "{attack}: {:?}", first.diagnostics);
    assert!(first.get("py-steady").is_some() && first.get("local-one").is_some());
    registry.invalidate_provider(&hostile);
    Arena {
        registry,
        _root: root,
    }
}

fn quick() -> Limits {
    Limits {
        deadline: Duration::from_secs(2),
        restart_initial: Duration::ZERO,
        ..Limits::default()
    }
}

#[test]
fn an_exception_in_snapshot_is_a_fault_of_that_provider_alone() {
    let arena = arena("raise", quick());
    let catalog = arena.registry.snapshot();
    assert!(!catalog.complete);
    // The last complete view is kept, and the local skill never moved.
    assert!(catalog.get("py-steady").is_some());
    assert!(catalog.get("local-one").is_some());
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("py-hostile"))
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert!(
        d.message.contains("provider py-hostile failed"),
        "{}",
        d.message
    );
}

#[test]
fn a_snapshot_that_never_returns_is_stopped_at_its_deadline() {
    let arena = arena("loop", quick());
    let begun = std::time::Instant::now();
    let catalog = arena.registry.snapshot();
    assert!(begun.elapsed() < Duration::from_secs(30));
    assert!(!catalog.complete);
    assert!(catalog.get("local-one").is_some());
    assert!(catalog.get("py-steady").is_some(), "the last complete view");
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.source.as_deref() == Some("py-hostile") && d.message.contains("deadline")),
        "{:?}",
        catalog.diagnostics
    );
}

#[test]
fn a_hundred_thousand_entries_are_capped_and_named() {
    let arena = arena(
        "many",
        Limits {
            deadline: Duration::from_secs(60),
            memory_bytes: 512 << 20,
            ..quick()
        },
    );
    let catalog = arena.registry.snapshot();
    assert!(catalog.get("local-one").is_some());
    let from_python = catalog
        .skills
        .iter()
        .filter(|s| s.source == "py-hostile")
        .count();
    assert!(from_python <= 10_000, "{from_python} kept");
    assert!(
        catalog.diagnostics.iter().any(
            |d| d.source.as_deref() == Some("py-hostile") && d.message.contains("were dropped")
        ),
        "{:?}",
        &catalog.diagnostics[..catalog.diagnostics.len().min(5)]
    );
}

#[test]
fn entries_claiming_other_namespaces_or_real_folders_are_refused_or_kept_in_its_own() {
    let arena = arena("namespaces", quick());
    let catalog = arena.registry.snapshot();
    assert!(catalog.complete);
    for skill in catalog.skills.iter().filter(|s| s.source == "py-hostile") {
        // Whatever it claimed, what it keeps is in its own namespace.
        match &skill.path {
            Location::Provided { provider, .. } => assert_eq!(provider, "py-hostile"),
            other => panic!("{} is at {other}", skill.name()),
        }
    }
    for refused in ["claims-bundled", "claims-root", "claims-home", "climbs"] {
        assert!(catalog.get(refused).is_none(), "{refused}");
    }
    let outside = catalog
        .diagnostics
        .iter()
        .filter(|d| {
            d.source.as_deref() == Some("py-hostile")
                && d.message.contains("outside the provider's grants")
        })
        .count();
    assert_eq!(outside, 4, "{:?}", catalog.diagnostics);
    // `bundled:/...` has no leading slash: a path of its own namespace.
    let own = catalog.get("other-prefix").unwrap();
    assert_eq!(
        own.path.to_string(),
        "py-hostile:bundled:/writing-skills/SKILL.md"
    );
}

#[test]
fn frontmatter_json_that_does_not_parse_or_is_not_an_object_is_refused_by_name() {
    let arena = arena("bad-json", quick());
    let catalog = arena.registry.snapshot();
    assert!(catalog.complete);
    assert!(catalog.get("py-steady").is_some());
    for (name, why) in [
        ("broken-json", "does not parse"),
        ("list-json", "found a list"),
        ("text-json", "found text"),
    ] {
        assert!(catalog.get(name).is_none(), "{name}");
        let d = catalog
            .diagnostics
            .iter()
            .find(|d| d.path == format!("py-hostile:{name}/SKILL.md"))
            .unwrap_or_else(|| panic!("{name}: {:?}", catalog.diagnostics));
        assert!(d.message.contains(why), "{name}: {}", d.message);
    }
}

#[test]
fn a_benign_refusal_is_logged_once_per_provider_at_info_however_often_it_recurs() {
    // The registry runs providers on its own threads, so the log is caught
    // by a process-wide subscriber (the only one this binary sets), and
    // this test's provider has an id no other test uses.
    let captured = skillhost_tests::Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
    let runtime = runtime();
    let id = "py-benign-noted";
    // Each instance's second snapshot raises: the next starts a new CPython
    // instance, which reads its environment again.
    let hostile = provider_of(
        &runtime,
        id,
        component(&runtime, &python_hostile()),
        Vec::new(),
        &[("attack", "raise"), ("from", "2")],
        quick(),
    );
    let registry = Registry::new();
    registry.add(hostile.clone()).unwrap();
    for _ in 0..6 {
        registry.invalidate_provider(&hostile);
        let catalog = registry.snapshot();
        assert!(
            !catalog
                .diagnostics
                .iter()
                .any(|d| d.message.contains("environment variables: none")),
            "the contract working is no catalog warning: {:?}",
            catalog.diagnostics
        );
    }
    let environment = hostile
        .refusal_counts()
        .into_iter()
        .find(|r| r.kind == Refused::Environment)
        .expect("the environment read is noted");
    assert!(environment.count >= 3, "{environment:?}");
    let log = captured.text();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("environment variables: none") && l.contains(id))
        .collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(lines[0].contains("INFO"), "{}", lines[0]);
}
