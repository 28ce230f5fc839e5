//! Providers written in Python and JavaScript, run through the binary as
//! their authors and users would: the conformance kit, `inspect` and
//! `trust` (which leave the component compiled), then `catalog` and `load`
//! from a granted `skillhost.toml`.

use super::{skillhost, state_in, stdout};
use skillhost_tests::languages::{js_example, python_example};
use skillhost_tests::nginx::Nginx;
use std::path::Path;
use std::process::Command;

/// `skills.json` for the JS example, served by nginx from a temporary folder.
pub fn js_skills_server() -> (tempfile::TempDir, Nginx) {
    let listing = serde_json::json!({"skills": [
        {"name": "js-notes", "frontmatter": {"description": "Takes notes"}, "body": "Write it down.\n"},
    ]});
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("skills.json"), listing.to_string()).unwrap();
    let nginx = Nginx::serve(dir.path());
    (dir, nginx)
}

#[test]
fn the_kit_passes_the_python_and_js_examples_from_the_command_line() {
    let home = tempfile::tempdir().unwrap();
    let python = python_example();
    let out = skillhost(
        &["conformance", python.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("roots: none"), "{text}");

    let (_dir, nginx) = js_skills_server();
    let js = js_example();
    let url = format!("url={}skills.json", nginx.url());
    let out = skillhost(
        &[
            "conformance",
            js.to_str().unwrap(),
            "--setting",
            &url,
            "--origin",
            &nginx.origin(),
            "--json",
        ],
        home.path(),
        home.path(),
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["component"]["wit"], "skillhost:provider@0.3.0");
}

/// `skillhost ARGS` with its own, empty compile cache.
fn with_cache(args: &[&str], cwd: &Path, home: &Path, cache: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("SKILLHOST_CACHE_DIR", cache)
        .env("SKILLHOST_STATE_DIR", state_in(home))
        .output()
        .expect("the binary runs")
}

fn cached_entries(cache: &Path, sha256: &str) -> usize {
    std::fs::read_dir(cache)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with(sha256))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_granted_python_provider_serves_catalog_and_load_compiled_once_by_inspect() {
    let python = python_example();
    let bytes = std::fs::read(&python).unwrap();
    let sha256 = skillhost_skill::digest::sha256_hex(&bytes);
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let out = with_cache(
        &["inspect", python.to_str().unwrap(), "--json"],
        &project,
        home.path(),
        &cache,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Inspecting compiled it into the cache: the first catalog after
    // granting does not pay for the compile again.
    assert_eq!(cached_entries(&cache, &sha256), 1);
    let inspected: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inspected["manifest"]["roots"], "none");
    let grant = inspected["grant"].as_str().unwrap();
    std::fs::write(
        project.join("skillhost.toml"),
        format!("bundled = false\n{grant}"),
    )
    .unwrap();
    let trusted = with_cache(&["trust"], &project, home.path(), &cache);
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    assert_eq!(cached_entries(&cache, &sha256), 1, "trust reused the entry");

    let out = with_cache(&["catalog", "--json"], &project, home.path(), &cache);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(catalog["complete"], true, "{catalog:#}");
    let names: Vec<&str> = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"py-greeting") && names.contains(&"py-farewell"),
        "{names:?}"
    );
    let greeting = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "py-greeting")
        .unwrap();
    let id = inspected["grant"]
        .as_str()
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("id = "))
        .unwrap()
        .trim_matches('"')
        .to_string();
    assert_eq!(greeting["path"], format!("{id}:py-greeting/SKILL.md"));
    assert_eq!(greeting["allowed_tools"], serde_json::json!(["Read"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("WARN"),
        "no warning for the contract working: {stderr}"
    );

    let out = with_cache(&["load", "py-greeting"], &project, home.path(), &cache);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "Say hello.\n");
}
