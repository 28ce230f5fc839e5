//! The README's two commands build on each other: the test command
//! (`--workspace`, dev-dependencies and the bench crate included) resolves
//! every library the run command (`cargo run -p skillhost-cli`) builds with
//! the same features, so it compiles only what the tests add. One feature a
//! test-only dependency adds to, say, tokio makes cargo compile tokio again
//! and everything above it: hyper, wasmtime-wasi, rmcp, the host, the MCP
//! server and the binary. The lines that keep the two in step are in
//! `cli/Cargo.toml` and `wasm-build/Cargo.toml`.

use super::layers::{cargo_on_workspace, host_triple};
use std::collections::{BTreeMap, BTreeSet};

/// Each package `cargo tree` resolves for the selection `args`, with its
/// features, one line per distinct (package, features): a package built
/// with two feature sets in one build (for build scripts and for run time)
/// has two lines.
fn resolved(selection: &[&str]) -> BTreeSet<String> {
    let triple = host_triple();
    let mut args = vec!["tree"];
    args.extend_from_slice(selection);
    args.extend(["--offline", "--locked", "--prefix", "none"]);
    args.extend(["--format", "{p} [{f}]", "--target", &triple]);
    String::from_utf8_lossy(&cargo_on_workspace(&args))
        .lines()
        .map(|line| line.trim_end_matches(" (*)").to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

/// What the README's run command builds.
fn run_command() -> BTreeSet<String> {
    resolved(&["-p", "skillhost-cli", "--edges", "normal,build"])
}

#[test]
fn the_test_build_resolves_every_library_of_the_run_command_with_the_same_features() {
    let tests = resolved(&["--workspace", "--edges", "normal,build,dev"]);
    let run = run_command();
    let diverging: Vec<&String> = run.iter().filter(|p| !tests.contains(*p)).collect();
    assert!(
        diverging.is_empty(),
        "the test command resolves these packages of the run command with other \
         features, so it compiles them and all above them again (give the run \
         command the same features in cli/Cargo.toml): {diverging:#?}"
    );
}

#[test]
fn the_run_command_compiles_no_large_crate_twice() {
    let mut feature_sets: BTreeMap<String, usize> = BTreeMap::new();
    for line in run_command() {
        // `name vX.Y.Z`: two versions of a crate are two crates.
        let package = line.split(" [").next().unwrap_or_default().to_string();
        *feature_sets.entry(package).or_default() += 1;
    }
    let twice: BTreeSet<&str> = feature_sets
        .iter()
        .filter(|(_, sets)| **sets > 1)
        .filter_map(|(package, _)| package.split(' ').next())
        .collect();
    // Small crates, each compiled in about a second, whose build-script
    // copy has no features: giving it the run-time ones would cost more.
    let small = BTreeSet::from([
        "cranelift-bitset",
        "log",
        "pulley-interpreter",
        "wasmtime-internal-core",
    ]);
    let unexpected: Vec<&&str> = twice.difference(&small).collect();
    assert!(
        unexpected.is_empty(),
        "the run command compiles these once for build scripts and once for run \
         time, with different features (give the build-script side the run-time \
         features in wasm-build/Cargo.toml, or the other way round in \
         cli/Cargo.toml): {unexpected:#?}"
    );
}
