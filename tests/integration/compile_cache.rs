//! The on-disk compile cache: a second start does not recompile,
//! and a corrupt entry is rebuilt rather than trusted or fatal.

use skillhost::Runtime;
use skillhost::provider::sources::builtin::LOCAL_PROVIDER;
use skillhost::sandbox::CacheOutcome;
use skillhost_tests::corpus;
use std::path::Path;

fn start(cache: &Path) -> Runtime {
    Runtime::with_cache_dir(Some(cache.to_path_buf())).unwrap()
}

fn load(cache: &Path) -> CacheOutcome {
    let runtime = start(cache);
    let component = runtime.local_component().unwrap();
    // Whatever the cache did, the component must work.
    let registry = runtime.registry_for_roots(&[corpus()]).unwrap();
    assert_eq!(registry.snapshot().skills.len(), 14);
    component.cache_outcome().clone()
}

fn entry(cache: &Path) -> std::path::PathBuf {
    let runtime = start(cache);
    runtime
        .engine()
        .cache()
        .entry_path(runtime.engine().engine(), LOCAL_PROVIDER)
        .unwrap()
}

#[test]
fn the_second_start_loads_the_compiled_component_without_recompiling() {
    let cache = tempfile::tempdir().unwrap();
    assert_eq!(load(cache.path()), CacheOutcome::Miss);
    assert!(entry(cache.path()).is_file());
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
}

#[test]
fn a_truncated_entry_is_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    assert_eq!(load(cache.path()), CacheOutcome::Miss);
    let path = entry(cache.path());
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(
        matches!(load(cache.path()), CacheOutcome::Rebuilt(reason) if reason.contains("checksum"))
    );
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
}

#[test]
fn a_flipped_byte_in_an_entry_is_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    load(cache.path());
    let path = entry(cache.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(load(cache.path()), CacheOutcome::Rebuilt(_)));
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
}

#[test]
fn a_planted_entry_with_a_valid_checksum_never_reaches_wasmtime() {
    use sha2::{Digest, Sha256};
    let cache = tempfile::tempdir().unwrap();
    load(cache.path());
    let path = entry(cache.path());
    // What anyone who can write the folder could plant: a plain checksum
    // over a payload of their choosing (the format a key-less cache used).
    let payload = b"this is not a compiled component".to_vec();
    let mut forged = b"SKHOST1\n".to_vec();
    forged.extend_from_slice(&Sha256::digest(&payload));
    forged.extend_from_slice(&payload);
    std::fs::write(&path, forged).unwrap();
    let outcome = load(cache.path());
    assert!(
        matches!(&outcome, CacheOutcome::Rebuilt(reason) if reason.contains("bad header")),
        "{outcome:?}"
    );
    // The same payload in today's format, tagged without the user's key.
    let real = std::fs::read(&path).unwrap();
    let mut tagged = real[..8].to_vec();
    tagged.extend_from_slice(&[0x5a; 32]);
    tagged.extend_from_slice(&real[40..]);
    std::fs::write(&path, tagged).unwrap();
    let outcome = load(cache.path());
    assert!(
        matches!(&outcome, CacheOutcome::Rebuilt(reason) if reason.contains("not authenticated")),
        "{outcome:?}"
    );
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
}

#[test]
fn an_entry_copied_to_another_components_name_is_rebuilt() {
    use skillhost::provider::sources::builtin::BUNDLED_PROVIDER;
    let cache = tempfile::tempdir().unwrap();
    let runtime = start(cache.path());
    runtime.local_component().unwrap();
    let bundled = runtime
        .engine()
        .cache()
        .entry_path(runtime.engine().engine(), BUNDLED_PROVIDER)
        .unwrap();
    // The local provider's genuine entry, under the bundled provider's name.
    std::fs::copy(entry(cache.path()), &bundled).unwrap();
    let again = start(cache.path());
    let outcome = again.bundled_component().unwrap().cache_outcome().clone();
    assert!(
        matches!(&outcome, CacheOutcome::Rebuilt(reason) if reason.contains("not authenticated")),
        "{outcome:?}"
    );
}

#[test]
fn a_cache_folder_others_may_write_in_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let cache = tempfile::tempdir().unwrap();
    std::fs::set_permissions(cache.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_eq!(load(cache.path()), CacheOutcome::Disabled);
    assert!(
        std::fs::read_dir(cache.path()).unwrap().next().is_none(),
        "nothing was written there"
    );
}

#[test]
fn an_unwritable_cache_folder_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_folder = dir.path().join("file");
    std::fs::write(&not_a_folder, b"in the way").unwrap();
    assert_eq!(load(&not_a_folder), CacheOutcome::Miss);
}
