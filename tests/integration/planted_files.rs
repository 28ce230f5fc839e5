//! Files a cloned repository can plant in a skills root, made for real:
//! a FIFO, a socket and a device link where a `SKILL.md` should be, and
//! folders linked to `/`, the home folder and the root's own ancestor. The
//! real local provider skips or refuses each with a diagnostic, the catalog
//! returns (a FIFO opened the ordinary way would wait forever), and the
//! good skill beside them loads. (A symlink loop is in `bad_input.rs`.)

use skillhost::provider::ChangeKind;
use skillhost::{Catalog, Diagnostic, Registry, Severity};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A root with a good skill, canonical.
fn root_with_a_good_skill() -> (tempfile::TempDir, PathBuf) {
    let dir = tree(&[("good/SKILL.md", skill_md("good", "A good skill").as_bytes())]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

/// The catalog of the local provider over `root`, asked on another thread;
/// panics if it has not returned within a minute (a hang guard: a host
/// thread stuck in an open never returns).
fn catalog_of(root: &Path) -> Arc<Catalog> {
    let root = root.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = runtime();
        let registry = Registry::new();
        registry
            .add(runtime.local_provider(&root).unwrap())
            .unwrap();
        let _ = tx.send(registry.snapshot());
    });
    let catalog = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the catalog returned");
    assert_eq!(
        catalog.get("good").and_then(|s| s.description()),
        Some("A good skill"),
        "the good skill loads: {catalog:?}"
    );
    catalog
}

/// The diagnostic about `path` that says `what`.
fn diagnostic_for<'c>(catalog: &'c Catalog, path: &Path, what: &str) -> &'c Diagnostic {
    catalog
        .diagnostics
        .iter()
        .find(|d| Path::new(&d.path) == path && d.message.contains(what))
        .unwrap_or_else(|| {
            panic!(
                "no diagnostic for {} saying {what:?}: {:?}",
                path.display(),
                catalog.diagnostics
            )
        })
}

/// The skill at `root/folder/SKILL.md` was skipped as not a regular file,
/// and nothing else was lost.
fn skipped_as_not_regular(root: &Path, folder: &str) {
    let catalog = catalog_of(root);
    assert!(
        catalog.complete,
        "a planted file is not a transient failure"
    );
    assert_eq!(catalog.skills.len(), 1, "{:?}", catalog.skills);
    let d = diagnostic_for(
        &catalog,
        &root.join(folder).join("SKILL.md"),
        "not a regular file",
    );
    assert_eq!(d.severity, Severity::Error);
}

#[test]
fn a_fifo_named_skill_md_is_skipped_and_the_catalog_returns() {
    let (_dir, root) = root_with_a_good_skill();
    std::fs::create_dir(root.join("fifo")).unwrap();
    skillhost_tests::mkfifo(&root.join("fifo/SKILL.md"));
    skipped_as_not_regular(&root, "fifo");
}

#[test]
fn a_unix_socket_named_skill_md_is_skipped() {
    let (_dir, root) = root_with_a_good_skill();
    std::fs::create_dir(root.join("socket")).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(root.join("socket/SKILL.md")).unwrap();
    skipped_as_not_regular(&root, "socket");
}

#[test]
fn a_skill_md_linked_to_a_device_is_never_read() {
    let (_dir, root) = root_with_a_good_skill();
    std::fs::create_dir(root.join("device")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("device/SKILL.md")).unwrap();
    let catalog = catalog_of(&root);
    assert!(catalog.complete);
    assert_eq!(catalog.skills.len(), 1, "{:?}", catalog.skills);
    // The link leads out of the root's mount: the sandbox refuses it
    // before anything is opened.
    let d = diagnostic_for(
        &catalog,
        &root.join("device/SKILL.md"),
        "a path led outside of the filesystem",
    );
    assert_eq!(d.severity, Severity::Error);
}

/// A folder linked into the root as `name` and pointing at `target` is
/// refused with a diagnostic naming why; nothing under it is a skill.
fn linked_folder_refused(name: &str, target: &Path, why: &str) {
    let (_dir, root) = root_with_a_good_skill();
    std::os::unix::fs::symlink(target, root.join(name)).unwrap();
    let catalog = catalog_of(&root);
    let d = diagnostic_for(&catalog, &root.join(name), "symlink not followed");
    assert!(d.message.contains(why), "{d}");
    assert_eq!(d.field.as_deref(), Some("capability"));
    assert!(
        catalog
            .skills
            .iter()
            .all(|s| !s.path.to_string().contains(&format!("/{name}/"))),
        "nothing is read through the link: {:?}",
        catalog.skills
    );
}

#[test]
fn a_folder_linked_to_the_filesystem_root_is_refused() {
    linked_folder_refused("everything", Path::new("/"), "the whole filesystem");
}

#[test]
fn a_folder_linked_to_the_home_folder_is_refused() {
    let Some(home) = std::env::home_dir().and_then(|h| std::fs::canonicalize(h).ok()) else {
        return;
    };
    // A skill in the home folder must not become reachable through the link.
    linked_folder_refused("home", &home, "the home folder or a folder above it");
}

#[test]
fn a_folder_linked_to_an_ancestor_of_the_root_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    let outer_path = std::fs::canonicalize(outer.path()).unwrap();
    write(
        &outer_path,
        "beside/SKILL.md",
        skill_md("beside", "Not under the root").as_bytes(),
    );
    let root = outer_path.join("root");
    write(
        &root,
        "good/SKILL.md",
        skill_md("good", "A good skill").as_bytes(),
    );
    std::os::unix::fs::symlink(&outer_path, root.join("up")).unwrap();
    let catalog = catalog_of(&root);
    let d = diagnostic_for(&catalog, &root.join("up"), "symlink not followed");
    assert!(d.message.contains("the root or a folder above it"), "{d}");
    assert!(catalog.get("beside").is_none());
}

#[test]
fn the_watcher_does_not_follow_a_linked_folder_outside_every_mount() {
    let outer = tempfile::tempdir().unwrap();
    let outer_path = std::fs::canonicalize(outer.path()).unwrap();
    let root = outer_path.join("root");
    write(
        &root,
        "good/SKILL.md",
        skill_md("good", "A good skill").as_bytes(),
    );
    // Refused as an ancestor, so not mounted: outside every mount.
    std::os::unix::fs::symlink(&outer_path, root.join("up")).unwrap();
    let runtime = runtime();
    let registry = Registry::new();
    let provider = runtime.local_provider(&root).unwrap();
    registry.add(provider.clone()).unwrap();
    registry.watch(Default::default()).unwrap();
    let delivered: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let record = delivered.clone();
    let watcher = registry.watcher().expect("watching");
    let _subscription = watcher.on_delivery(move |_, events: &[(PathBuf, ChangeKind)]| {
        let mut seen = record.lock().unwrap();
        seen.extend(events.iter().map(|(path, _)| path.clone()));
    });
    let first = registry.snapshot();
    assert!(first.get("good").is_some());
    // A change beyond the link, then one inside the root: once the second
    // is delivered, the first would have been too had the link been followed.
    write(
        &outer_path,
        "outside-skill/SKILL.md",
        skill_md("outside-skill", "Beyond the link").as_bytes(),
    );
    write(
        &root,
        "sentinel/SKILL.md",
        skill_md("sentinel", "Inside the root").as_bytes(),
    );
    let delivered_inside = || {
        let seen = delivered.lock().unwrap();
        seen.iter().any(|p| p.starts_with(root.join("sentinel")))
    };
    let until = Instant::now() + Duration::from_secs(30);
    while !delivered_inside() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        delivered_inside(),
        "the change inside the root was delivered"
    );
    let catalog = registry.snapshot();
    assert!(catalog.get("sentinel").is_some(), "{catalog:?}");
    assert!(catalog.get("outside-skill").is_none());
    let seen = delivered.lock().unwrap().clone();
    assert!(
        !seen
            .iter()
            .any(|p| p.to_string_lossy().contains("outside-skill")),
        "a change beyond the link was delivered: {seen:?}"
    );
    registry.dispose();
}
