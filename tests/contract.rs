//! The released contract is frozen: a provider built against
//! `skillhost:provider@0.1.0` must keep working with every later host, so
//! no file under `guest-sdk/wit/v0.1.0` may change (a new version goes
//! beside it). The contract lives in the SDK crate so the SDK packages on
//! its own; the host's bindings read the same files.

use sha2::{Digest, Sha256};
use skillhost_tests::workspace;

/// Every file of `guest-sdk/wit/v0.1.0`, with the SHA-256 it was released with.
const FROZEN: &[(&str, &str)] = &[(
    "provider.wit",
    "9db69dcfa5f4835ff865d12fa4994e8c01a895c4621209497c7a248881e4bd3c",
)];

#[test]
fn the_released_contract_is_byte_for_byte_unchanged() {
    let dir = workspace().join("guest-sdk/wit/v0.1.0");
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    let expected: Vec<&str> = FROZEN.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        present,
        expected,
        "files were added to or removed from {}",
        dir.display()
    );
    for (name, digest) in FROZEN {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let actual: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            &actual, digest,
            "{name} changed: released contracts are never edited"
        );
    }
}
