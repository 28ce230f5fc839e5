//! Compiles the first-party provider components from source so the binary
//! embeds them; nothing compiled is ever committed.

use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let workspace = Path::new(&manifest_dir)
        .parent()
        .expect("the host crate lives inside the workspace");
    let providers = [
        ("skillhost-provider-local", "SKILLHOST_LOCAL_PROVIDER_WASM"),
        (
            "skillhost-provider-bundled",
            "SKILLHOST_BUNDLED_PROVIDER_WASM",
        ),
        (
            "skillhost-provider-remote",
            "SKILLHOST_REMOTE_PROVIDER_WASM",
        ),
    ];
    let packages: Vec<&str> = providers.iter().map(|(p, _)| *p).collect();
    let built = skillhost_wasm_build::build_components(workspace, &packages);
    for ((_, var), path) in providers.iter().zip(&built) {
        println!("cargo:rustc-env={var}={}", path.display());
    }
}
