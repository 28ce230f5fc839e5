//! Build-script helper: compiles workspace packages into WebAssembly
//! components (`wasm32-wasip2`) so that providers and test guests are always
//! built from source, never committed as binaries.
//!
//! It runs a nested `cargo build` into its own target folder (so it never
//! waits on the outer build's lock) with the workspace's `wasm` profile.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target every component is built for.
pub const TARGET: &str = "wasm32-wasip2";

/// Removes from `command` the outer build's settings, which are for the
/// host, not for a WebAssembly guest built inside it. Every nested build of a
/// component (the build scripts here, and the tests that build a provider as
/// an outside author would) goes through this one list.
pub fn scrub_host_settings(command: &mut Command) {
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_PRIMARY_PACKAGE",
        // A component's file has no hash in its name, so worktrees sharing
        // one build folder would overwrite each other's providers there:
        // a nested build uses the target folder its caller names.
        "CARGO_BUILD_BUILD_DIR",
    ] {
        command.env_remove(var);
    }
}

/// Builds `packages` (workspace package names) as components and returns the
/// path of each `.wasm`, in the same order. Panics with an actionable message
/// when the target is missing or the build fails: this runs in build scripts,
/// where a panic is how failure is reported.
pub fn build_components(workspace_root: &Path, packages: &[&str]) -> Vec<PathBuf> {
    for watched in [
        "skill",
        "guest-sdk",
        "wit",
        "providers",
        "tests/guests",
        "Cargo.lock",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace_root.join(watched).display()
        );
    }
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");
    require_target();

    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root.join("target"))
        .join("wasm-guests");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace_root)
        .args(["build", "--quiet", "--profile", "wasm", "--target", TARGET])
        .arg("--target-dir")
        .arg(&target_dir);
    for package in packages {
        command.args(["--package", package]);
    }
    scrub_host_settings(&mut command);
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run cargo to build the provider components: {e}"));
    if !output.status.success() {
        panic!(
            "building the WebAssembly components {packages:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    packages
        .iter()
        .map(|package| {
            let file = target_dir
                .join(TARGET)
                .join("wasm")
                .join(format!("{}.wasm", package.replace('-', "_")));
            assert!(
                file.is_file(),
                "cargo built {package} but {} is missing",
                file.display()
            );
            file
        })
        .collect()
}

/// Fails early, naming the fix, when the standard library for the target is
/// not installed (`RUSTUP_AUTO_INSTALL=0` machines never fetch it on their own).
fn require_target() {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let installed = libdir.as_deref().is_some_and(|dir| {
        std::fs::read_dir(dir).is_ok_and(|mut entries| {
            entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-")))
        })
    });
    if !installed {
        panic!(
            "the {TARGET} target is not installed for this toolchain, so the sandboxed \
             providers cannot be built.\nRun:\n\n    rustup target add {TARGET}\n"
        );
    }
}
