//! The sandbox from the inside: a test guest (`tests/guests/probe`) tries to
//! write in its root, read outside it and loop forever; the host must refuse,
//! stop it, and keep serving every other provider.

use skillhost::error::Error;
use skillhost::sandbox::{FaultKind, Limits};
use skillhost::{Diagnostic, Registry};
use skillhost_tests::{PROBE_GUEST, corpus, provider_of, runtime, tree};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn outcome<'a>(diagnostics: &'a [Diagnostic], attempt: &str) -> &'a str {
    diagnostics
        .iter()
        // A relative path names the provider's own namespace: `<id>:<path>`.
        .find(|d| d.path.ends_with(&format!(":{attempt}")))
        .map(|d| d.message.as_str())
        .unwrap_or_else(|| panic!("the probe did not report {attempt}: {diagnostics:?}"))
}

#[test]
fn a_provider_can_read_its_root_but_not_write_in_it_nor_read_outside_it() {
    let outside = tree(&[("secret.txt", b"not for providers")]);
    let dir = tree(&[
        ("root/inside.txt", b"granted"),
        ("outside.txt", b"beside the root"),
    ]);
    let root = dir.path().join("root");
    let runtime = runtime();
    let probe = runtime.load_component(PROBE_GUEST).unwrap();
    let secret = outside.path().join("secret.txt");
    let provider = provider_of(
        &runtime,
        "probe",
        probe,
        vec![root.clone()],
        &[("outside", secret.to_str().unwrap())],
        Limits::default(),
    );
    let (view, _) = provider.view();
    assert!(view.complete, "{:?}", view.diagnostics);
    let d = &view.diagnostics;
    assert_eq!(outcome(d, "read-in-root"), "allowed");
    for attempt in [
        "write-in-root",
        "create-dir-in-root",
        "read-outside",
        "read-parent-of-root",
        "list-filesystem-root",
        "environment",
    ] {
        assert!(
            outcome(d, attempt).starts_with("denied"),
            "{attempt}: {}",
            outcome(d, attempt)
        );
    }
    assert!(!root.join("written-by-probe.txt").exists());
    assert!(!root.join("probe-dir").exists());
    // The skill it reported is mapped back to the host path of its root.
    let canonical_root = std::fs::canonicalize(&root).unwrap();
    assert_eq!(view.skills[0].path, canonical_root.join("probe/SKILL.md"));
}

#[test]
fn a_looping_export_is_stopped_by_its_deadline_while_another_provider_keeps_answering() {
    let dir = tree(&[("inside.txt", b"x")]);
    let runtime = runtime();
    let deadline = Duration::from_millis(400);
    let looping = provider_of(
        &runtime,
        "looping",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![dir.path().to_path_buf()],
        &[("loop", "snapshot")],
        Limits {
            deadline,
            ..Limits::default()
        },
    );
    let healthy = Registry::new();
    healthy
        .add(runtime.local_provider(corpus()).unwrap())
        .unwrap();
    healthy.snapshot();

    let started = Instant::now();
    let stuck = std::thread::spawn(move || {
        let (view, _) = looping.view();
        (view, Instant::now())
    });
    // While the loop spins, the other provider is asked again and answers.
    std::thread::sleep(deadline / 4);
    let healthy_provider = healthy.providers()[0].clone();
    healthy.invalidate_provider(&healthy_provider);
    let catalog = healthy.snapshot();
    let answered = Instant::now();
    assert_eq!(catalog.skills.len(), 14);
    assert!(catalog.complete);

    let (view, stopped) = stuck.join().expect("the host thread survives the guest");
    assert!(
        answered < stopped,
        "the healthy provider answered while the other looped"
    );
    let elapsed = stopped - started;
    assert!(elapsed >= deadline, "stopped early: {elapsed:?}");
    assert!(elapsed < deadline * 10, "not stopped: {elapsed:?}");
    assert!(!view.complete);
    let d = &view.diagnostics[0];
    assert_eq!(d.field.as_deref(), Some("deadline"));
    assert!(
        d.message.contains("looping") && d.message.contains("deadline"),
        "{d}"
    );
}

#[test]
fn after_a_deadline_fault_the_provider_is_restarted_and_answers() {
    let dir = tree(&[("inside.txt", b"x")]);
    let runtime = runtime();
    let provider = provider_of(
        &runtime,
        "loops-in-load",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![dir.path().to_path_buf()],
        &[("loop", "load")],
        Limits {
            deadline: Duration::from_millis(200),
            ..Limits::default()
        },
    );
    let err = provider.load("probe").unwrap_err();
    match err {
        Error::Fault { provider, fault } => {
            assert_eq!(provider, "loops-in-load");
            assert_eq!(fault.kind, FaultKind::Deadline);
        }
        other => panic!("expected a deadline fault, got {other}"),
    }
    // The restart waits out a short backoff, then the provider answers.
    let (waiting, _) = provider.view();
    assert!(
        !waiting.complete,
        "during the backoff the view is incomplete"
    );
    std::thread::sleep(Limits::default().restart_initial * 2);
    let (view, _) = provider.view();
    assert!(view.complete, "{:?}", view.diagnostics);
    assert_eq!(view.skills.len(), 1);
    assert_eq!(
        provider.stats().instantiations(),
        2,
        "the dead instance was replaced"
    );
}

#[test]
fn a_trap_in_init_is_reported_with_the_guests_message() {
    let dir = tree(&[("inside.txt", b"x")]);
    let runtime = runtime();
    let provider = provider_of(
        &runtime,
        "traps-in-init",
        runtime.load_component(PROBE_GUEST).unwrap(),
        vec![dir.path().to_path_buf()],
        &[("trap", "init")],
        Limits::default(),
    );
    let (view, _) = provider.view();
    assert!(!view.complete);
    assert!(view.skills.is_empty());
    let d = &view.diagnostics[0];
    assert_eq!(d.field.as_deref(), Some("trap"));
    assert!(d.message.contains("traps-in-init"), "{d}");
    assert!(
        d.message.contains("probe asked to trap in init"),
        "stderr is kept: {d}"
    );
}

#[test]
fn a_missing_root_is_granted_by_path_and_mounted_once_it_exists() {
    let parent = tree(&[]);
    let root: PathBuf = parent.path().join("later");
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[&root]).unwrap();
    let catalog = registry.snapshot();
    assert!(
        catalog.complete,
        "a missing root is an empty, complete view"
    );
    assert!(catalog.skills.is_empty());

    skillhost_tests::write(
        &root,
        "new/SKILL.md",
        skillhost_tests::skill_md("new", "Appeared later").as_bytes(),
    );
    let provider = registry.providers()[0].clone();
    registry.invalidate_provider(&provider);
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("new").and_then(|s| s.description()),
        Some("Appeared later")
    );
}

#[test]
fn a_denied_import_with_another_signature_is_refused_when_loaded() {
    let runtime = runtime();
    // A component asking for `create-tcp-socket` as a function of nothing:
    // the shim must not be reachable with a shape it was not written for.
    let bytes = wat::parse_str(
        r#"(component
            (import "wasi:sockets/tcp-create-socket@0.2.12" (instance
                (export "create-tcp-socket" (func))
            ))
        )"#,
    )
    .unwrap();
    let message = match runtime.load_component(&bytes) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a component with a mistyped import was loaded"),
    };
    assert!(
        message.contains("create-tcp-socket"),
        "the diagnostic names the import: {message}"
    );
}

/// A component that names every export of the contract (each a function
/// of nothing, so it fails the contract's type check once instantiated)
/// and instantiates `body`'s core modules first: what those cost is what
/// the store's limits must refuse before anything else is checked.
fn component_spending(body: &str) -> Vec<u8> {
    let exports: String = [
        "init",
        "snapshot",
        "load",
        "list-resources",
        "read-resource",
        "on-change",
        "observe",
    ]
    .iter()
    .map(|name| format!("(export \"{name}\" (func $f))"))
    .collect();
    wat::parse_str(format!(
        r#"(component
            {body}
            (core module $nothing (func (export "f")))
            (core instance $fi (instantiate $nothing))
            (func $f (canon lift (core func $fi "f")))
            (instance $provider {exports})
            (export "skillhost:provider/provider@0.1.0" (instance $provider))
        )"#
    ))
    .unwrap()
}

/// `count` core instances of a module declaring `each`.
fn instances_of(each: &str, count: usize) -> String {
    let mut body = format!("(core module $m {each})");
    for _ in 0..count {
        body.push_str("(core instance (instantiate $m))");
    }
    body
}

/// One core instance of a module declaring `each` `count` times.
fn one_instance_declaring(each: &str, count: usize) -> String {
    format!(
        "(core module $m {}) (core instance (instantiate $m))",
        each.repeat(count)
    )
}

/// What starting a provider of `bytes` says, beside a healthy provider
/// that keeps answering.
fn started(bytes: &[u8]) -> String {
    let runtime = runtime();
    let dir = tree(&[("inside.txt", b"x")]);
    let component = runtime
        .load_component(bytes)
        .expect("the exports are named: it loads");
    let spending = provider_of(
        &runtime,
        "spending",
        component,
        vec![dir.path().to_path_buf()],
        &[],
        Limits::default(),
    );
    let registry = Registry::new();
    registry.add(spending).unwrap();
    registry
        .add(runtime.local_provider(corpus()).unwrap())
        .unwrap();
    let catalog = registry.snapshot();
    assert!(!catalog.complete);
    assert_eq!(catalog.skills.len(), 14, "the healthy provider answers");
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("spending"))
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert!(d.message.contains("provider spending failed"), "{d}");
    d.message.clone()
}

#[test]
fn a_store_may_hold_eight_memories_and_no_more() {
    let within = started(&component_spending(&instances_of("(memory 1)", 8)));
    assert!(
        within.contains("type mismatch") && !within.contains("resource limit"),
        "eight memories are allowed: {within}"
    );
    let over = started(&component_spending(&instances_of("(memory 1)", 9)));
    assert!(
        over.contains("resource limit exceeded") && over.contains("8 memories"),
        "{over}"
    );
}

#[test]
fn a_store_may_hold_thirty_two_tables_and_no_more() {
    let within = started(&component_spending(&one_instance_declaring(
        "(table 1 funcref)",
        32,
    )));
    assert!(
        within.contains("type mismatch") && !within.contains("resource limit"),
        "{within}"
    );
    let over = started(&component_spending(&one_instance_declaring(
        "(table 1 funcref)",
        33,
    )));
    assert!(
        over.contains("resource limit exceeded") && over.contains("32 tables"),
        "{over}"
    );
}

#[test]
fn a_store_may_create_thirty_two_instances_and_no_more() {
    // One instance is the exports' own.
    let within = started(&component_spending(&instances_of("", 31)));
    assert!(
        within.contains("type mismatch") && !within.contains("resource limit"),
        "{within}"
    );
    let over = started(&component_spending(&instances_of("", 32)));
    assert!(
        over.contains("resource limit exceeded") && over.contains("32 instances"),
        "{over}"
    );
}

#[test]
fn the_memory_cap_holds_for_all_of_a_stores_memories_together() {
    // Four memories of 40 MiB: each fits the 128 MiB cap, together they
    // do not.
    let within = started(&component_spending(&instances_of("(memory 640)", 3)));
    assert!(!within.contains("memory cap"), "{within}");
    let over = started(&component_spending(&instances_of("(memory 640)", 4)));
    assert!(over.contains("memory cap"), "{over}");
}

#[test]
fn table_elements_are_capped_across_a_stores_tables() {
    // 100,000 elements in all: each of four tables of 30,000 would pass
    // alone.
    let within = started(&component_spending(&instances_of(
        "(table 30000 funcref)",
        3,
    )));
    assert!(!within.contains("exceeds table limits"), "{within}");
    let over = started(&component_spending(&instances_of(
        "(table 30000 funcref)",
        4,
    )));
    assert!(
        over.contains("table minimum size of 30000 elements exceeds table limits"),
        "{over}"
    );
}

#[test]
fn provider_instances_one_after_another_reuse_memory_and_see_the_same_skills() {
    let dir = tree(&[
        (
            "alpha/SKILL.md",
            b"---\nname: alpha\ndescription: Use for alpha.\n---\nbody\n",
        ),
        (
            "beta/SKILL.md",
            b"---\nname: beta\ndescription: Use for beta.\n---\nbody\n",
        ),
    ]);
    let runtime = skillhost::Runtime::new().unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let registry = Registry::new();
        registry
            .add(runtime.local_provider(dir.path()).unwrap())
            .unwrap();
        let mut names: Vec<String> = registry
            .snapshot()
            .skills
            .iter()
            .map(|s| s.frontmatter.name.clone())
            .collect();
        names.sort();
        seen.push(names);
    }
    assert!(seen.iter().all(|n| n == &["alpha", "beta"]), "{seen:?}");
    assert!(
        runtime.engine().memories_reused() >= 2,
        "later instances ran in kept memories"
    );
}
