//! The `skillhost` binary, run as a user would: real folders, real output.

mod config;
mod reading;
mod session;
mod views;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn skillhost(args: &[&str], cwd: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache"),
        )
        .output()
        .expect("the binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn examples() -> String {
    workspace().join("examples/skills").display().to_string()
}
