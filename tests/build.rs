//! Builds the test guests in `tests/guests/` from source.

use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let workspace = Path::new(&manifest_dir)
        .parent()
        .expect("the tests crate lives inside the workspace");
    let built = skillhost_wasm_build::build_components(
        workspace,
        &[
            "skillhost-guest-probe",
            "skillhost-guest-hostile",
            "skillhost-guest-v0-2",
            "skillhost-guest-command",
        ],
    );
    println!(
        "cargo:rustc-env=SKILLHOST_PROBE_GUEST_WASM={}",
        built[0].display()
    );
    println!(
        "cargo:rustc-env=SKILLHOST_HOSTILE_GUEST_WASM={}",
        built[1].display()
    );
    println!(
        "cargo:rustc-env=SKILLHOST_V0_2_GUEST_WASM={}",
        built[2].display()
    );
    println!(
        "cargo:rustc-env=SKILLHOST_COMMAND_GUEST_WASM={}",
        built[3].display()
    );
}
