//! What the watcher tells besides the catalog: the files it delivered to
//! a provider, to delivery listeners and on the registry's channel.

use super::{PATIENCE, live, root};
use skillhost::registry::watch::WatchOptions;
use skillhost_tests::{skill_md, write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[test]
fn delivery_listeners_hear_a_body_only_edit_that_changes_no_catalog() {
    let (_dir, root) = root();
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "Same").as_bytes(),
    );
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    let provider = live.registry.providers()[0].clone();
    let generation = provider.signals().generation();
    let (tx, rx) = mpsc::channel();
    let subscription = live
        .registry
        .watcher()
        .unwrap()
        .on_delivery(move |id, changes| {
            let _ = tx.send((id.to_string(), changes.to_vec()));
        });
    let file = root.join("notes/SKILL.md");
    write(
        &root,
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: Same\n---\nA new body.\n",
    );
    let (id, changes) = rx.recv_timeout(PATIENCE).expect("the edit was delivered");
    assert_eq!(id, provider.id());
    assert!(
        changes.iter().any(|(path, _)| *path == file),
        "the edited file is named: {changes:?}"
    );
    assert_eq!(provider.signals().generation(), generation);
    std::thread::sleep(Duration::from_millis(100));
    while rx.try_recv().is_ok() {}
    drop(subscription);
    write(
        &root,
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: Same\n---\nA third body.\n",
    );
    std::thread::sleep(Duration::from_millis(300));
    // Dropping the subscription released the listener (and its sender).
    assert_eq!(rx.try_recv(), Err(mpsc::TryRecvError::Disconnected));
}

#[test]
fn the_registry_channel_names_the_file_of_a_body_only_edit_and_the_provider_of_a_catalog_edit() {
    use skillhost::registry::Change;
    let (_dir, root) = root();
    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "Same").as_bytes(),
    );
    let live = live(std::slice::from_ref(&root), WatchOptions::default());
    let provider = live.registry.providers()[0].clone();
    let (tx, rx) = mpsc::channel();
    let _subscription = live.registry.subscribe(move |change| {
        let _ = tx.send(change.clone());
    });
    let file = root.join("notes/SKILL.md");
    let next = |what: &str, wanted: &dyn Fn(&Change) -> bool| -> Change {
        let until = Instant::now() + PATIENCE;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(change) if wanted(&change) => return change,
                Ok(_) => {}
                Err(_) => panic!("{what}: no such change within {PATIENCE:?}"),
            }
        }
    };

    write(
        &root,
        "notes/SKILL.md",
        b"---\nname: notes\ndescription: Same\n---\nA new body.\n",
    );
    let files = next("the body edit", &|c| matches!(c, Change::Files { .. }));
    let Change::Files {
        provider: id,
        changes,
    } = files
    else {
        unreachable!("only file changes are taken")
    };
    assert_eq!(id, provider.id());
    assert!(
        changes.iter().any(|(path, _)| *path == file),
        "the edited file is named: {changes:?}"
    );

    write(
        &root,
        "notes/SKILL.md",
        skill_md("notes", "Changed").as_bytes(),
    );
    // The registry's own change (the provider added) may still be on its
    // way when the test subscribes: it names no provider.
    let catalog = next(
        "the description edit",
        &|c| matches!(c, Change::Catalog { providers, .. } if !providers.is_empty()),
    );
    let Change::Catalog { providers, .. } = catalog else {
        unreachable!("only catalog changes are taken")
    };
    assert_eq!(providers, [provider.id().to_string()]);
}
