//! Released contracts are frozen: a provider built against
//! `skillhost:provider@0.1.0` or `@0.2.0` must keep working with every
//! later host, so no file under a released `wit/vX.Y.Z` may
//! change (a new version goes beside it). The contract has one home, the
//! top-level `wit/`: the SDK crate and the example providers reach it
//! through links, so the SDK still packages on its own and no second copy
//! can drift.

use sha2::{Digest, Sha256};
use skillhost_tests::workspace;

/// Every released version's folder, and each of its files with the SHA-256
/// it was released with.
const FROZEN: &[(&str, &[(&str, &str)])] = &[
    (
        "v0.1.0",
        &[(
            "provider.wit",
            "9db69dcfa5f4835ff865d12fa4994e8c01a895c4621209497c7a248881e4bd3c",
        )],
    ),
    (
        "v0.2.0",
        &[(
            "provider.wit",
            "3aadad630008fa26059e216f52aa06c06cc6d032eb5fd59fb80bc486923e0117",
        )],
    ),
];

#[test]
fn the_released_contracts_are_byte_for_byte_unchanged() {
    for (version, files) in FROZEN {
        let dir = workspace().join("wit").join(version);
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        present.sort();
        let expected: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            present,
            expected,
            "files were added to or removed from {}",
            dir.display()
        );
        for (name, digest) in *files {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let actual: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(
                &actual, digest,
                "{version}/{name} changed: released contracts are never edited"
            );
        }
    }
}

#[test]
fn the_contract_has_one_copy_and_every_other_wit_folder_links_to_it() {
    let root = workspace();
    let links = [
        ("guest-sdk/wit", "../wit"),
        ("examples/provider-python/wit", "../../wit/v0.3.0"),
        ("examples/provider-js/wit", "../../wit/v0.3.0"),
    ];
    for (link, target) in links {
        let path = root.join(link);
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(
            meta.file_type().is_symlink(),
            "{link} is a link, not a copy"
        );
        assert_eq!(
            std::fs::read_link(&path).unwrap(),
            std::path::Path::new(target)
        );
    }
    // No other `.wit` file anywhere in the sources.
    let mut found = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() && !name.starts_with('.') && name != "target" && name != "node_modules"
            {
                stack.push(entry.path());
            } else if kind.is_file() && name.ends_with(".wit") {
                found.push(entry.path().strip_prefix(&root).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    let expected: Vec<std::path::PathBuf> = [
        "wit/v0.1.0/provider.wit",
        "wit/v0.2.0/provider.wit",
        "wit/v0.3.0/provider.wit",
    ]
    .iter()
    .map(Into::into)
    .collect();
    assert_eq!(found, expected);
}
