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
fn an_entry_wasmtime_refuses_is_rebuilt_even_with_a_valid_checksum() {
    use sha2::{Digest, Sha256};
    let cache = tempfile::tempdir().unwrap();
    load(cache.path());
    let path = entry(cache.path());
    let payload = b"this is not a compiled component".to_vec();
    let mut forged = b"SKHOST1\n".to_vec();
    forged.extend_from_slice(&Sha256::digest(&payload));
    forged.extend_from_slice(&payload);
    std::fs::write(&path, forged).unwrap();
    assert!(
        matches!(load(cache.path()), CacheOutcome::Rebuilt(reason) if reason.contains("wasmtime refused"))
    );
    assert_eq!(load(cache.path()), CacheOutcome::Hit);
}

#[test]
fn an_unwritable_cache_folder_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_folder = dir.path().join("file");
    std::fs::write(&not_a_folder, b"in the way").unwrap();
    assert_eq!(load(&not_a_folder), CacheOutcome::Miss);
}
