//! The provider template (`examples/provider-template`) built with its one
//! command, granted in a `skillhost.toml` with its `sha256` pin, and
//! serving the skills of the `skills.toml` in its root. Also: the SDK it
//! depends on packages on its own, the contract inside it.

use skillhost::config::Config;
use skillhost_tests::template::{template_component, template_dir};
use skillhost_tests::{runtime, workspace};
use std::path::Path;
use std::process::Command;

/// A `skillhost.toml` granting the template `root`, pinned to its digest.
fn config_for(wasm: &Path, root: &Path, dir: &Path) -> Config {
    let sha = skillhost_skill::digest::sha256_hex(&std::fs::read(wasm).unwrap());
    let text = format!(
        "bundled = false\n[[provider]]\nid = \"template\"\nwasm = {:?}\nsha256 = \"{sha}\"\nroots = [{:?}]\n",
        wasm.display().to_string(),
        root.display().to_string(),
    );
    let path = dir.join("skillhost.toml");
    std::fs::write(&path, &text).unwrap();
    Config::load(&path).expect("the grant parses")
}

#[test]
fn the_template_builds_and_serves_the_skills_of_its_skills_toml() {
    let wasm = template_component();
    let root = tempfile::tempdir().unwrap();
    let example = std::fs::read(template_dir().join("skills/skills.toml")).unwrap();
    std::fs::write(root.path().join("skills.toml"), &example).unwrap();
    let config = config_for(&wasm, root.path(), root.path());
    let registry = config.registry(&runtime()).unwrap();
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["commit-message", "release-notes"]);
    let commit = &catalog.skills[0];
    assert_eq!(
        commit.description(),
        Some("Writes a commit message for the staged changes")
    );
    assert_eq!(
        commit.frontmatter.allowed_tools,
        ["Bash(git diff --staged)", "Bash(git log -5 --oneline)"]
    );
    assert_eq!(
        catalog.skills[1].frontmatter.argument_hint.as_deref(),
        Some("[tag]")
    );
    let doc = registry.load("commit-message").unwrap();
    assert!(
        doc.body.starts_with("1. Read `git diff --staged`"),
        "{}",
        doc.body
    );

    // Its one resource is the document, as SKILL.md text, digest matching.
    let resources = registry.list_resources("commit-message").unwrap();
    let [document] = &resources[..] else {
        panic!("{resources:?}")
    };
    let bytes = registry
        .read_resource("commit-message", &document.path)
        .unwrap();
    assert_eq!(skillhost_skill::digest::sha256(&bytes), document.digest);

    // An edit is served after the provider is invalidated; a broken file is
    // an error naming it, never a crash.
    std::fs::write(
        root.path().join("skills.toml"),
        "[only]\ndescription = \"The one left\"\nbody = \"x\"\n",
    )
    .unwrap();
    registry.invalidate_provider(&registry.providers()[0]);
    let names: Vec<String> = registry
        .snapshot()
        .skills
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    assert_eq!(names, ["only"]);
    std::fs::write(root.path().join("skills.toml"), "[broken\n").unwrap();
    registry.invalidate_provider(&registry.providers()[0]);
    let catalog = registry.snapshot();
    assert!(catalog.skills.is_empty());
    let error = catalog
        .diagnostics
        .iter()
        .find(|d| d.path.ends_with("skills.toml"))
        .unwrap_or_else(|| panic!("an error on skills.toml: {:?}", catalog.diagnostics));
    assert!(error.message.contains("TOML"), "{}", error.message);
}

#[test]
fn a_root_without_skills_toml_serves_nothing_and_says_nothing() {
    let wasm = template_component();
    let root = tempfile::tempdir().unwrap();
    let config = config_for(&wasm, root.path(), root.path());
    let catalog = config.registry(&runtime()).unwrap().snapshot();
    assert!(catalog.complete);
    assert!(catalog.skills.is_empty());
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
}

/// `cargo package` of the SDK with the one crate it depends on from this
/// repository: both are packaged and the SDK is built from its package,
/// so its bindings find the contract inside it.
#[test]
fn the_sdk_packages_on_its_own_with_the_contract_inside() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target_dir = workspace().join("target/sdk-package");
    let output = Command::new(&cargo)
        .current_dir(workspace())
        .args([
            "package",
            "-p",
            "skillhost-skill",
            "-p",
            "skillhost-guest-sdk",
        ])
        // A working tree under edit is packaged as it is.
        .arg("--allow-dirty")
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_BUILD_DIR")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo package failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = Command::new(&cargo)
        .current_dir(workspace())
        .args([
            "package",
            "-p",
            "skillhost-guest-sdk",
            "--list",
            "--allow-dirty",
        ])
        .output()
        .expect("cargo runs");
    let files = String::from_utf8_lossy(&listed.stdout);
    assert!(
        [
            "wit/v0.1.0/provider.wit",
            "wit/v0.2.0/provider.wit",
            "wit/v0.3.0/provider.wit",
        ]
        .iter()
        .all(|wit| files.lines().any(|l| l == *wit)),
        "the package holds the contract: {files}"
    );
}

/// The template passes the conformance kit, granted a root holding its
/// example `skills.toml`. The kit's own fixture tree is `SKILL.md` files,
/// which the template does not read, so the root is given and the checks
/// that need the fixture are skipped with that reason.
#[test]
fn the_template_passes_the_conformance_kit() {
    let root = tempfile::tempdir().unwrap();
    let example = std::fs::read(template_dir().join("skills/skills.toml")).unwrap();
    std::fs::write(root.path().join("skills.toml"), &example).unwrap();
    let options = skillhost_conformance::Options {
        roots: vec![root.path().to_path_buf()],
        ..skillhost_conformance::Options::default()
    };
    let report = skillhost_conformance::check(template_component(), options).unwrap();
    report.assert_passed();
    assert!(report.passed() >= 8, "{}", report.text());
}
