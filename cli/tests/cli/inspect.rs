//! `skillhost inspect` on real built components: the provider template as
//! its README builds it, and the first-party local provider.

use super::{skillhost, stdout};
use skillhost_tests::template::{template_component, template_dir};
use std::path::Path;

/// The grant `inspect` printed, with `roots` filled in as an author would.
fn granted(grant: &str, root: &Path) -> String {
    let filled = format!("roots = [{:?}]", root.display().to_string());
    let with_roots = grant
        .lines()
        .map(|l| {
            if l.starts_with("roots = []") {
                filled.clone()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!("bundled = false\n{with_roots}\n")
}

#[test]
fn inspect_prints_the_contract_imports_exports_digest_and_a_pinned_grant() {
    let wasm = template_component();
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["inspect", wasm.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&wasm).unwrap();
    let sha = skillhost_skill::digest::sha256_hex(&bytes);
    assert!(
        text.contains("contract   skillhost:provider@0.3.0\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("size       {} bytes\n", bytes.len())),
        "{text}"
    );
    assert!(text.contains(&format!("sha256     {sha}\n")), "{text}");
    // A component imports only the functions it calls.
    assert!(
        text.contains("\n  skillhost:provider/host@0.3.0  invalidate-provider, watch\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  skillhost:provider/types@0.3.0\n"),
        "{text}"
    );
    // What it declares, asked of an instance granted nothing.
    assert!(
        text.contains("\ndeclares (its manifest: a request, not a grant)\n  roots: reads them if granted\n  origins: reaches none\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  skillhost:provider/provider@0.3.0  manifest, init, snapshot, load, list-resources, read-resource, read-resource-range, on-change, observe\n"),
        "{text}"
    );
    // The SDK's std links the environment; the sandbox gives it nothing.
    assert!(
        text.contains("    denied: no environment variables are granted"),
        "{text}"
    );
    assert!(
        text.contains("    needs `roots`: no folder is granted"),
        "{text}"
    );
    assert!(
        text.contains(&format!("grant it in skillhost.toml:\n\n[[provider]]\nid = \"provider-template\"\nwasm = {:?}\nsha256 = \"{sha}\"\nroots = []", wasm.display().to_string())),
        "{text}"
    );
}

#[test]
fn the_printed_grant_parses_and_serves_the_template_from_skillhost_toml() {
    let wasm = template_component();
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["inspect", "--json", wasm.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bytes = std::fs::read(&wasm).unwrap();
    assert_eq!(value["contract"], "skillhost:provider@0.3.0");
    assert_eq!(value["version"], "0.3.0");
    assert_eq!(value["manifest"]["roots"], "optional");
    assert_eq!(value["size"], bytes.len());
    assert_eq!(value["sha256"], skillhost_skill::digest::sha256_hex(&bytes));
    assert_eq!(value["path"], wasm.to_str().unwrap());
    assert_eq!(value["link_error"], serde_json::Value::Null);
    let imports = value["imports"].as_array().unwrap();
    let environment = imports
        .iter()
        .find(|i| {
            i["name"]
                .as_str()
                .unwrap()
                .starts_with("wasi:cli/environment@")
        })
        .unwrap();
    assert!(
        environment["denied"]
            .as_str()
            .unwrap()
            .starts_with("no environment")
    );
    let files = imports
        .iter()
        .find(|i| {
            i["name"]
                .as_str()
                .unwrap()
                .starts_with("wasi:filesystem/preopens@")
        })
        .unwrap();
    assert_eq!(files["needs"]["key"], "roots");
    assert_eq!(files["denied"], serde_json::Value::Null);
    let exports = value["exports"].as_array().unwrap();
    assert_eq!(exports[0]["name"], "skillhost:provider/provider@0.3.0");

    // The grant, roots filled in, is a skillhost.toml the host accepts.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        template_dir().join("skills/skills.toml"),
        dir.path().join("skills.toml"),
    )
    .unwrap();
    let config = dir.path().join("skillhost.toml");
    std::fs::write(
        &config,
        granted(value["grant"].as_str().unwrap(), dir.path()),
    )
    .unwrap();
    let out = skillhost(
        &["catalog", "--config", config.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with(
            "commit-message  Writes a commit message for the staged changes\nrelease-notes   "
        ),
        "{text}"
    );

    // Trusting the file shows what its component declares beside what the
    // file grants it.
    let trusted = skillhost(
        &["trust", config.to_str().unwrap(), "--json"],
        home.path(),
        home.path(),
    );
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let trusted: serde_json::Value = serde_json::from_slice(&trusted.stdout).unwrap();
    let declared = &trusted["declared"][0];
    assert_eq!(declared["provider"], "provider-template");
    let lines: Vec<&str> = declared["declares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["roots: reads them if granted", "origins: reaches none"]
    );
}

#[test]
fn inspect_names_the_file_when_it_is_not_a_provider() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not.wasm");
    std::fs::write(&file, b"\0asm but not really").unwrap();
    let out = skillhost(&["inspect", file.to_str().unwrap()], dir.path(), dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not.wasm") && stderr.contains("not a valid provider component"),
        "{stderr}"
    );
    let missing = skillhost(&["inspect", "missing.wasm"], dir.path(), dir.path());
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cannot read"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}
