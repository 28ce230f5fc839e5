//! The `skillhost` binary, run as a user would: real folders, real output.

mod config;
mod conformance;
mod inspect;
mod languages;
mod reading;
mod readme;
mod registry;
mod session;
mod usage;
mod views;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `skillhost ARGS` in `cwd` with `home` as its home.
pub fn skillhost(args: &[&str], cwd: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache-cli"),
        )
        // Usage, trusted files and the cache key live in the test's own
        // home, never the real one (see `state_in`).
        .env("SKILLHOST_STATE_DIR", state_in(home))
        .output()
        .expect("the binary runs")
}

/// A private state folder inside `home`, holding the one compile-cache key
/// every test shares: each run then reuses the components an earlier test
/// compiled instead of compiling them again under a key of its own.
pub fn state_in(home: &Path) -> PathBuf {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let state = home.join(".state");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&state)
        .unwrap();
    let key = state.join("cache-key");
    if !key.exists() {
        let bytes = shared_key();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&key)
            .unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
    }
    state
}

/// The key under `target/`, made once by whichever test comes first.
fn shared_key() -> Vec<u8> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = workspace().join("target/test-state");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cache-key");
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() == 32
    {
        return bytes;
    }
    let mut key = [0u8; 32];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").unwrap(), &mut key).unwrap();
    let tmp = dir.join(format!("cache-key.{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .unwrap();
    std::io::Write::write_all(&mut file, &key).unwrap();
    // A hard link never replaces a key another test made meanwhile.
    let _ = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    std::fs::read(&path).unwrap()
}

/// What a run printed on standard output.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The example skills shipped in the repository.
pub fn examples() -> String {
    workspace().join("examples/skills").display().to_string()
}
