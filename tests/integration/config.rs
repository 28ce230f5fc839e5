//! `skillhost.toml` end to end: providers started from it (first-party and a
//! third party's `.wasm`), with its grants and limits; a pinned digest that
//! no longer matches keeps that provider out and the others running.

use sha2::{Digest, Sha256};
use skillhost::config::Config;
use skillhost_tests::{PROBE_GUEST, runtime, skill_md, tree};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn configured_providers_run_with_their_grants_and_limits() {
    let dir = tree(&[
        (
            "skills/mine/SKILL.md",
            skill_md("mine", "From the config").as_bytes(),
        ),
        ("probe-root/inside.txt", b"x"),
    ]);
    std::fs::write(dir.path().join("probe.wasm"), PROBE_GUEST).unwrap();
    let text = format!(
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"skills\"]\nmemory_mib = 32\ndeadline_ms = 2000\n\n\
         [[provider]]\nid = \"probe\"\nwasm = \"probe.wasm\"\nsha256 = \"{}\"\nroots = [\"probe-root\"]\n\
         settings = {{ outside = \"/etc/hostname\" }}\n",
        hex(PROBE_GUEST)
    );
    std::fs::write(dir.path().join("skillhost.toml"), text).unwrap();
    let config = Config::find(None, dir.path())
        .unwrap()
        .expect("found in the folder");
    let registry = config.registry(&runtime()).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    assert_eq!(
        catalog.get("mine").and_then(|s| s.description()),
        Some("From the config")
    );
    assert!(
        catalog.get("probe").is_some(),
        "the third party's component runs"
    );
    // Its grant is exactly its root: the probe could read inside, not outside.
    let outcome = |attempt: &str| {
        catalog
            .diagnostics
            .iter()
            // A relative path names the provider's own namespace: `<id>:<path>`.
            .find(|d| d.path.ends_with(&format!(":{attempt}")))
            .map(|d| d.message.clone())
            .unwrap_or_default()
    };
    assert!(outcome("read-outside").starts_with("denied"));
    assert!(outcome("write-in-root").starts_with("denied"));
}

#[test]
fn a_changed_component_is_refused_until_the_pin_is_updated() {
    let dir = tree(&[
        (
            "skills/mine/SKILL.md",
            skill_md("mine", "Still served").as_bytes(),
        ),
        ("probe-root/inside.txt", b"x"),
    ]);
    std::fs::write(dir.path().join("probe.wasm"), PROBE_GUEST).unwrap();
    let stale_pin = hex(b"the component as it was when the user approved it");
    let path = dir.path().join("skillhost.toml");
    std::fs::write(
        &path,
        format!(
            "[[provider]]\nid = \"probe\"\nwasm = \"probe.wasm\"\nsha256 = \"{stale_pin}\"\nroots = [\"probe-root\"]\n\n\
             [[provider]]\nbuiltin = \"local\"\nroots = [\"skills\"]\n"
        ),
    )
    .unwrap();
    let registry = Config::load(&path).unwrap().registry(&runtime()).unwrap();
    let catalog = registry.snapshot();
    assert!(
        catalog.get("probe").is_none(),
        "the changed component does not run"
    );
    assert!(catalog.get("mine").is_some(), "the others do");
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.message.contains("provider probe not started"))
        .expect("a diagnostic naming the provider");
    assert!(d.path.ends_with("skillhost.toml:1"), "{}", d.path);
    assert!(
        d.message.contains(&hex(PROBE_GUEST)) && d.message.contains(&stale_pin),
        "{}",
        d.message
    );
}

#[test]
fn a_missing_component_file_is_reported_and_the_rest_runs() {
    let dir = tree(&[(
        "skills/mine/SKILL.md",
        skill_md("mine", "Served").as_bytes(),
    )]);
    let path = dir.path().join("skillhost.toml");
    std::fs::write(
        &path,
        "[[provider]]\nwasm = \"gone.wasm\"\n\n[[provider]]\nbuiltin = \"local\"\nroots = [\"skills\"]\n",
    )
    .unwrap();
    let catalog = Config::load(&path)
        .unwrap()
        .registry(&runtime())
        .unwrap()
        .snapshot();
    assert!(catalog.get("mine").is_some());
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.message.contains("gone.wasm"))
    );
}

#[test]
fn a_file_that_is_not_a_provider_is_reported() {
    let dir = tree(&[("junk.wasm", b"\0asm but not really")]);
    let path = dir.path().join("skillhost.toml");
    std::fs::write(&path, "[[provider]]\nid = \"junk\"\nwasm = \"junk.wasm\"\n").unwrap();
    let catalog = Config::load(&path)
        .unwrap()
        .registry(&runtime())
        .unwrap()
        .snapshot();
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.message.contains("provider junk not started")),
        "{:?}",
        catalog.diagnostics
    );
}

#[test]
fn a_component_path_naming_a_fifo_or_a_device_is_refused_at_once_and_the_rest_runs() {
    let dir = tree(&[(
        "skills/mine/SKILL.md",
        skill_md("mine", "Served").as_bytes(),
    )]);
    let fifo = dir.path().join("fifo.wasm");
    skillhost_tests::mkfifo(&fifo);
    let path = dir.path().join("skillhost.toml");
    std::fs::write(
        &path,
        "[[provider]]\nid = \"fifo\"\nwasm = \"fifo.wasm\"\n\n\
         [[provider]]\nid = \"zero\"\nwasm = \"/dev/zero\"\n\n\
         [[provider]]\nbuiltin = \"local\"\nroots = [\"skills\"]\n",
    )
    .unwrap();
    // A read that blocks (the FIFO) or never ends (/dev/zero) would hang
    // here; the test fails instead of waiting for it.
    let (sent, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let catalog = Config::load(&path)
            .unwrap()
            .registry(&runtime())
            .unwrap()
            .snapshot();
        let _ = sent.send(catalog);
    });
    let catalog = answer
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the configuration loaded without hanging on the FIFO or /dev/zero");
    assert!(catalog.get("mine").is_some());
    for (id, file) in [("fifo", "fifo.wasm"), ("zero", "/dev/zero")] {
        assert!(
            catalog.diagnostics.iter().any(|d| d
                .message
                .contains(&format!("provider {id} not started"))
                && d.message.contains(file)
                && d.message.contains("not a regular file")),
            "{id}: {:?}",
            catalog.diagnostics
        );
    }
}
