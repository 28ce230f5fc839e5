//! The official MCP conformance suite (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12) against `skillhost serve --http` on loopback: the three
//! SEP-2640 scenarios on 2026-07-28 and again on 2025-11-25, and the
//! protocol scenarios that apply to any server. The suite's exit code says
//! too little (a scenario it skips passes), so every check it wrote to
//! checks.json must be SUCCESS, and the checks that matter must be there.

use crate::support::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The SEP-2640 checks each scenario makes (none may be missing or skipped).
const ENUMERATION: &[&str] = &[
    "sep-2640-capability-empty-object",
    "sep-2640-capability-declaration-inline",
    "sep-2640-capability-requires-resources",
    "sep-2640-skills-list-implemented",
    "sep-2640-skills-list-pagination",
    "sep-2640-skills-list-entry-atomic",
    "sep-2640-entry-uri-required",
    "sep-2640-entry-frontmatter-required",
    "sep-2640-entry-uri-matches-frontmatter-name",
    "sep-2640-skill-uri-scheme",
    "sep-2640-entry-resources-required",
    "sep-2640-resources-complete",
    "sep-2640-resources-uri-within-skill",
    "sep-2640-resources-digest-format",
    "sep-2640-resources-size-required",
    "sep-2640-limit-resources-per-skill",
    "sep-2640-limit-total-size",
    "sep-2640-metadata-reserved-prefix",
    "sep-2640-name-naming-rules",
    "sep-2640-authority-reg-name",
    "sep-2640-names-should-be-unique",
    "sep-2640-capability-commits-to-methods",
    "sep-2640-skills-get-implemented",
    "sep-2640-skills-get-entry-shape",
    "sep-2640-skills-get-no-cursor",
    "sep-2640-skills-get-unknown-uri-invalid-params",
    "sep-2640-skillmd-required",
    "sep-2640-skillmd-frontmatter",
    "sep-2640-entry-frontmatter-identical",
    "wire-schema-valid",
];
/// Checked on 2026-07-28 only: the older revision has no cache hints.
const CACHE_HINTS: &[&str] = &[
    "sep-2640-skills-list-cache-attributes",
    "sep-2640-skills-get-cache-attributes",
];
const MANIFEST: &[&str] = &[
    "sep-2640-skillmd-mimetype",
    "sep-2640-final-segment-equals-name",
    "sep-2640-skillmd-metadata-name",
    "sep-2640-skillmd-metadata-description",
    "sep-2640-meta-prefix",
    "wire-schema-valid",
];
const DIRECTORY: &[&str] = &[
    "sep-2640-capability-directory-read-flag",
    "sep-2640-directory-read-method-registered",
    "sep-2640-directory-read-result-resources-shape",
    "sep-2640-directory-read-subdir-mimetype",
    "sep-2640-directory-read-invalid-params",
    "sep-2640-directory-read-pagination",
    "wire-schema-valid",
];

/// Runs one scenario and returns its checks: every one SUCCESS, except the
/// cache-hint checks the suite skips on 2025-11-25 (that revision has no
/// cache hints; it says so in the check).
fn scenario(url: &str, name: &str, extra: &[&str], out: &Path) -> Vec<Value> {
    let legacy = extra.contains(&"2025-11-25");
    let node = tool("node/node_modules/node/bin/node");
    let suite = tool("node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let dir = out.join(format!("{name}{}", extra.join("")));
    let run = output_within(
        Command::new(node)
            .arg(suite)
            .args(["server", "--url", url, "--scenario", name, "-o"])
            .arg(&dir)
            .args(extra),
        Duration::from_secs(300),
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let results: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{name}: no results ({e}); output: {stdout}"))
        .filter_map(Result::ok)
        .map(|e| e.path().join("checks.json"))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(results.len(), 1, "{name}: one result; output: {stdout}");
    let checks: Vec<Value> = serde_json::from_slice(&std::fs::read(&results[0]).unwrap()).unwrap();
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| c["status"] != "SUCCESS")
        .filter(|c| {
            !(legacy
                && c["status"] == "SKIPPED"
                && CACHE_HINTS.iter().any(|id| c["id"] == *id)
                && c["errorMessage"]
                    .as_str()
                    .is_some_and(|m| m.contains("not applicable")))
        })
        .map(|c| format!("{} {}: {}", c["id"], c["status"], c["errorMessage"]))
        .collect();
    assert!(failed.is_empty(), "{name} {extra:?}: {failed:#?}");
    assert!(
        run.status.success(),
        "{name}: exit {:?}: {stdout}",
        run.status
    );
    checks
}

fn assert_made(checks: &[Value], expected: &[&str], what: &str) {
    for id in expected {
        assert!(
            checks.iter().any(|c| c["id"] == *id),
            "{what}: check {id} was not made: {checks:#?}"
        );
    }
}

fn fixture() -> Fixture {
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            // First in listing order, with a subfolder: the directory scenario reads it.
            "alpha-guide/SKILL.md".into(),
            b"---\nname: alpha-guide\ndescription: How to write a guide\nlicense: MIT\nmetadata:\n  author: skillhost\n  version: \"1.0\"\n---\n# Guide\n\nSee references/STYLE.md.\n".to_vec(),
        ),
        ("alpha-guide/references/STYLE.md".into(), b"# Style\n".to_vec()),
        ("alpha-guide/assets/logo.png".into(), vec![0x89, b'P', b'N', b'G', 0, 1]),
        (
            "beta-notes/SKILL.md".into(),
            b"---\nname: beta-notes\ndescription: Take notes\n---\nWrite it down.\n".to_vec(),
        ),
        (
            "crowded/SKILL.md".into(),
            b"---\nname: crowded\ndescription: More files than a skill may have\n---\nx\n".to_vec(),
        ),
    ];
    for i in 0..512 {
        files.push((format!("crowded/files/{i}.txt"), b"x".to_vec()));
    }
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    Fixture::new(&borrowed)
}

#[test]
fn the_official_conformance_suite_passes_every_skills_and_protocol_check() {
    let fixture = fixture();
    let server = Server::start(&fixture, &[]);
    // The skill over the limits is left out, and the log says why.
    let stderr = server.until_logged("not served over MCP");
    assert!(
        stderr.contains("crowded") && stderr.contains("513 files"),
        "{stderr}"
    );
    let out = tempfile::tempdir().unwrap();
    let url = &server.url;
    let checks = scenario(url, "sep-2640-skills-enumeration", &[], out.path());
    assert_made(&checks, ENUMERATION, "enumeration");
    assert_made(&checks, CACHE_HINTS, "enumeration");
    assert_made(
        &scenario(url, "sep-2640-skills-manifest", &[], out.path()),
        MANIFEST,
        "manifest",
    );
    assert_made(
        &scenario(url, "sep-2640-skills-directory", &[], out.path()),
        DIRECTORY,
        "directory",
    );
    // The same scenarios on 2025-11-25: initialize, a session, no cache hints.
    let legacy = ["--spec-version", "2025-11-25", "--force"];
    assert_made(
        &scenario(url, "sep-2640-skills-enumeration", &legacy, out.path()),
        ENUMERATION,
        "enumeration 2025-11-25",
    );
    assert_made(
        &scenario(url, "sep-2640-skills-manifest", &legacy, out.path()),
        MANIFEST,
        "manifest 2025-11-25",
    );
    assert_made(
        &scenario(url, "sep-2640-skills-directory", &legacy, out.path()),
        DIRECTORY,
        "directory 2025-11-25",
    );
    for (name, expected) in [
        (
            "dns-rebinding-protection",
            &[
                "localhost-host-rebinding-rejected",
                "localhost-host-valid-accepted",
            ][..],
        ),
        (
            "server-initialize",
            &["server-initialize", "server-session-id-visible-ascii"][..],
        ),
        (
            "server-session-lifecycle",
            &[
                "server-session-initialized-accepted",
                "server-session-delete-accepted",
                "server-session-terminated-returns-404",
            ][..],
        ),
        (
            "caching",
            &[
                "sep-2549-resources-list-caching-hints",
                "sep-2549-resources-read-caching-hints",
                "sep-2549-tools-list-caching-hints",
            ][..],
        ),
        (
            "http-header-validation",
            &[
                "sep-2243-server-reject-invalid-headers",
                "sep-2243-header-name-case-insensitive",
            ][..],
        ),
        (
            "sep-2164-resource-not-found",
            &["sep-2164-error-code", "sep-2164-data-uri"][..],
        ),
    ] {
        assert_made(&scenario(url, name, &[], out.path()), expected, name);
    }
}
