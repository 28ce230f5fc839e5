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

pub use skillhost_tests::{process_cache_dir, state_in};

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
        .env("SKILLHOST_CACHE_DIR", process_cache_dir())
        // Usage, trusted files and the cache key live in the test's own
        // home, never the real one (see `state_in`).
        .env("SKILLHOST_STATE_DIR", state_in(home))
        .output()
        .expect("the binary runs")
}

/// What a run printed on standard output.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The example skills shipped in the repository.
pub fn examples() -> String {
    workspace().join("examples/skills").display().to_string()
}
