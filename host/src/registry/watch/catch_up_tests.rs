use super::*;
use crate::clock::file_clock_now;

/// Waits until the file clock has moved past every status time in
/// `paths`, so that a moment taken next is later than all of them.
fn clock_past(paths: &[&Path]) {
    let latest = paths
        .iter()
        .map(|p| status_time(&std::fs::symlink_metadata(p).unwrap()))
        .max()
        .unwrap();
    let waited = Instant::now();
    while file_clock_now() <= latest {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "the file clock did not move"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn paths(changes: &[(PathBuf, ChangeKind)]) -> Vec<PathBuf> {
    assert!(changes.iter().all(|(_, k)| *k == ChangeKind::Modified));
    let mut out: Vec<PathBuf> = changes.iter().map(|(p, _)| p.clone()).collect();
    out.sort();
    out
}

#[test]
fn only_what_changed_since_the_moment_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let notes = root.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("SKILL.md"), "before").unwrap();
    std::fs::write(root.join("flat.md"), "before").unwrap();
    clock_past(&[
        &root,
        &notes,
        &notes.join("SKILL.md"),
        &root.join("flat.md"),
    ]);
    let since = file_clock_now();
    let folders = [root.clone(), notes.clone()];
    assert_eq!(changed_since(&folders, since), []);

    // Rewritten in place: the file alone; a new file: it and its folder.
    std::fs::write(notes.join("SKILL.md"), "after").unwrap();
    std::fs::write(root.join("new.md"), "new").unwrap();
    assert_eq!(
        paths(&changed_since(&folders, since)),
        [root.clone(), root.join("new.md"), notes.join("SKILL.md")]
    );
}

#[test]
fn a_file_given_an_old_time_still_counts_as_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let file = root.join("SKILL.md");
    std::fs::write(&file, "before").unwrap();
    clock_past(&[&root, &file]);
    let since = file_clock_now();
    // `cp -p` or `touch -d` sets the time a reader sees back; the status
    // time still moves.
    std::fs::write(&file, "after").unwrap();
    let old = std::fs::File::options().write(true).open(&file).unwrap();
    old.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000))
        .unwrap();
    drop(old);
    assert_eq!(
        paths(&changed_since(std::slice::from_ref(&root), since)),
        [file]
    );
}

#[test]
fn a_file_that_vanished_or_a_folder_that_cannot_be_read_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let far_future = file_clock_now() + Duration::from_secs(3600);
    assert_eq!(
        paths(&changed_since(std::slice::from_ref(&gone), far_future)),
        [gone]
    );
}

#[test]
fn a_look_past_its_bound_asks_for_a_rescan_of_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for i in 0..=MAX_CATCH_UP_ENTRIES {
        std::fs::File::create(root.join(format!("{i}.md"))).unwrap();
    }
    let far_future = file_clock_now() + Duration::from_secs(3600);
    assert_eq!(
        changed_since(std::slice::from_ref(&root), far_future),
        [(root, ChangeKind::Rescan)]
    );
}
