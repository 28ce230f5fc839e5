//! The provider template (`examples/provider-template`), built the way its
//! README says, as an author outside this repository would build it.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The template's folder.
pub fn template_dir() -> PathBuf {
    super::workspace().join("examples/provider-template")
}

/// Builds the template with its one command, `cargo build --release
/// --target wasm32-wasip2` (plus `--locked`: its committed `Cargo.lock`
/// must stay current), into `target/provider-template`, and returns the
/// component's path. Built once per test process; cargo makes a rebuild
/// in another process a no-op. Panics with cargo's output if it fails.
pub fn template_component() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let target_dir = super::workspace().join("target/provider-template");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(template_dir()).args([
        "build",
        "--release",
        "--target",
        "wasm32-wasip2",
        "--locked",
    ]);
    // The test's own build settings are not the author's.
    skillhost_wasm_build::scrub_host_settings(&mut command);
    command.env("CARGO_TARGET_DIR", &target_dir);
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "building the provider template failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let wasm = target_dir.join("wasm32-wasip2/release/provider_template.wasm");
    assert!(
        wasm.is_file(),
        "cargo built the template but {} is missing",
        wasm.display()
    );
    wasm
}
