//! Compiles the first-party provider components from source so the binary
//! embeds them; nothing compiled is ever committed.

use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let workspace = Path::new(&manifest_dir)
        .parent()
        .expect("the host crate lives inside the workspace");
    let built = skillhost_wasm_build::build_components(workspace, &["skillhost-provider-local"]);
    println!(
        "cargo:rustc-env=SKILLHOST_LOCAL_PROVIDER_WASM={}",
        built[0].display()
    );
}
