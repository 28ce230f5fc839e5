use super::super::{FilesCtx, Mounts};
use super::*;
use crate::sandbox::Workers;
use crate::sandbox::bindings::latest::files::EntryKind;
use crate::sandbox::grants::Grants;

fn names(entries: &[DirEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.name.as_str()).collect()
}

fn files_for(root: &std::path::Path) -> FilesCtx {
    let mut mounts = Mounts::default();
    mounts.push(
        "/skills/0",
        Dir::open_ambient_dir(root, cap_std::ambient_authority()).unwrap(),
    );
    FilesCtx::new(mounts, Workers::new(0))
}

#[test]
fn a_listing_is_sorted_by_name_and_gives_each_entry_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("b")).unwrap();
    std::fs::write(dir.path().join("a.md"), "x").unwrap();
    std::os::unix::fs::symlink("b", dir.path().join("c")).unwrap();
    let opened = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
    let entries = list(&opened, "", "/skills/0").unwrap();
    assert_eq!(names(&entries), ["a.md", "b", "c"]);
    let kinds: Vec<EntryKind> = entries.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [EntryKind::File, EntryKind::Directory, EntryKind::Symlink]
    );
}

#[test]
fn the_grants_listing_answers_the_first_listing_of_its_root_in_one_call_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("pdf")).unwrap();
    let (grants, listed) = Grants::for_roots_listed(std::slice::from_ref(&root));
    assert_eq!(grants.mounts.len(), 1);
    let mut files = files_for(&root);
    files.answer_first_listings(listed);
    // A folder made after the grant: the first listing is the grant's,
    // the root as it was when the instance was granted it.
    std::fs::create_dir(root.join("xlsx")).unwrap();
    assert_eq!(names(&files.list_dir("/skills/0").unwrap()), ["pdf"]);
    // It answers once; the next listing reads the folder.
    assert_eq!(
        names(&files.list_dir("/skills/0").unwrap()),
        ["pdf", "xlsx"]
    );
}

#[test]
fn a_listing_the_grant_took_does_not_outlive_the_call_it_was_kept_for() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (_, listed) = Grants::for_roots_listed(std::slice::from_ref(&root));
    let mut files = files_for(&root);
    files.answer_first_listings(listed);
    files.end_call();
    std::fs::create_dir(root.join("pdf")).unwrap();
    assert_eq!(names(&files.list_dir("/skills/0").unwrap()), ["pdf"]);
}

#[test]
fn the_grant_mounts_the_folders_linked_into_a_root_from_its_one_listing() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (root, shared) = (base.join("skills"), base.join("shared/pdf"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    std::os::unix::fs::symlink(&shared, root.join("pdf")).unwrap();
    std::os::unix::fs::symlink(base.join("nowhere"), root.join("dangling")).unwrap();
    let (grants, mut listed) = Grants::for_roots_listed(std::slice::from_ref(&root));
    let mounted: Vec<&str> = grants.mounts.iter().map(|m| m.guest.as_str()).collect();
    assert_eq!(mounted, ["/skills/0", "/skills/0/pdf"]);
    assert_eq!(
        names(&listed.take("/skills/0").unwrap()),
        ["dangling", "pdf"]
    );
}
