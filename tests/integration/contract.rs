//! Released contracts are frozen: a provider built against
//! `skillhost:provider@0.1.0` or `@0.2.0` must keep working with every
//! later host, so no file under a released `guest-sdk/wit/vX.Y.Z` may
//! change (a new version goes beside it). The contract lives in the SDK
//! crate so the SDK packages on its own; the host's bindings read the same
//! files.

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
        let dir = workspace().join("guest-sdk/wit").join(version);
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
