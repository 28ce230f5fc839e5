//! The conformance suite's SEP-2640 *client* scenarios
//! (`sep-2640-client-no-prefetch`, `-verify-digest`, `-verify-size`,
//! `-verify-frontmatter`), with skillhost as the client: the suite runs
//! `conformance-client.sh`, which lists and loads through `skillhost
//! catalog` and `skillhost load` with an `mcp+http://` remote. Every check
//! the suite wrote must be SUCCESS, and a tampered skill must have been
//! refused, not loaded.

use crate::support::*;
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

fn client_scenario(name: &str, check: &str) -> (Fixture, std::path::PathBuf) {
    let fixture = Fixture::new(&[]);
    let out = fixture.base().join("out");
    let results = fixture.base().join("results");
    std::fs::create_dir_all(&out).unwrap();
    let node = tool("node/node_modules/node/bin/node");
    let suite = tool("node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let driver = workspace().join("cli/tests/serve/conformance-client.sh");
    let run = output_within(
        Command::new(node)
            .arg(suite)
            .args(["client", "--scenario", name, "--command"])
            .arg(&driver)
            .arg("-o")
            .arg(&results)
            .current_dir(fixture.base())
            .env("HOME", fixture.base())
            .env("SKILLHOST_CACHE_DIR", cache_dir())
            .env("SKILLHOST", skillhost())
            .env("OUT", &out),
        Duration::from_secs(300),
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let checks: Vec<Value> = std::fs::read_dir(&results)
        .unwrap_or_else(|e| panic!("{name}: no results ({e}); output: {stdout}"))
        .filter_map(Result::ok)
        .map(|e| e.path().join("checks.json"))
        .filter(|p| p.exists())
        .flat_map(|p| serde_json::from_slice::<Vec<Value>>(&std::fs::read(p).unwrap()).unwrap())
        .collect();
    assert!(
        checks.iter().any(|c| c["id"] == check),
        "{name}: check {check} not made: {checks:#?}\n{stdout}"
    );
    let failed: Vec<&Value> = checks.iter().filter(|c| c["status"] != "SUCCESS").collect();
    assert!(failed.is_empty(), "{name}: {failed:#?}\n{stdout}");
    (fixture, out)
}

fn refused(out: &std::path::Path, why: &str) {
    let outcome = std::fs::read_to_string(out.join("outcome")).unwrap_or_default();
    let err = std::fs::read_to_string(out.join("load.err")).unwrap_or_default();
    assert_eq!(outcome.trim(), "refused", "{err}");
    assert!(err.contains(why), "{err}");
}

#[test]
fn conformance_client_no_prefetch() {
    let (_fixture, out) =
        client_scenario("sep-2640-client-no-prefetch", "sep-2640-host-no-prefetch");
    let catalog: Value =
        serde_json::from_slice(&std::fs::read(out.join("catalog.json")).unwrap()).unwrap();
    assert!(
        catalog["skills"].as_array().is_some_and(|s| !s.is_empty()),
        "{catalog}"
    );
}

#[test]
fn conformance_client_verify_digest() {
    let (_fixture, out) = client_scenario(
        "sep-2640-client-verify-digest",
        "sep-2640-host-verify-digest",
    );
    refused(&out, "digest");
}

#[test]
fn conformance_client_verify_size() {
    let (_fixture, out) = client_scenario(
        "sep-2640-client-verify-size",
        "sep-2640-host-size-mismatch-failure",
    );
    // The served file is longer than listed: its digest differs too.
    refused(&out, "its size is");
}

#[test]
fn conformance_client_verify_frontmatter() {
    let (_fixture, out) = client_scenario(
        "sep-2640-client-verify-frontmatter",
        "sep-2640-host-frontmatter-comparison",
    );
    refused(&out, "frontmatter");
}
