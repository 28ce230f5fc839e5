//! The official Python SDK (`mcp` 2.3.0) as the client, over stdio and over
//! HTTP, on both revisions: `initialize` (2025-11-25, notifications through
//! the session) and `auto` (2026-07-28 through `server/discover`,
//! notifications through `subscriptions/listen`).

use crate::support::*;
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

fn fixture() -> Fixture {
    Fixture::new(&[
        (
            "review/SKILL.md",
            b"---\nname: review\ndescription: Review a change\nargument-hint: \"[ref]\"\n---\nReview $ARGUMENTS carefully.\n",
        ),
        (
            "deploy/SKILL.md",
            b"---\nname: deploy\ndescription: Ship it\ndisable-model-invocation: true\n---\nDeploy $0.\n",
        ),
        ("notes/SKILL.md", b"---\nname: notes\ndescription: Take notes\n---\nWrite it down.\n"),
        ("notes/references/how.md", b"# How\n"),
    ])
}

/// What `skillhost invoke` prints for these arguments.
fn invoke(fixture: &Fixture, args: &[&str]) -> String {
    let root = fixture.root.to_str().unwrap();
    let mut all = vec!["invoke"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--no-bundled", "--root", root]);
    let out = fixture.command(&all).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run_client(fixture: &Fixture, transport: &str, mode: &str, url: Option<&str>) -> Value {
    let python = tool("pyvenv/bin/python");
    let script = workspace().join("cli/tests/serve/client.py");
    let mut command = Command::new(python);
    command
        .arg(script)
        .args(["--transport", transport, "--mode", mode, "--root"])
        .arg(&fixture.root)
        .arg("--skillhost")
        .arg(skillhost())
        .env("HOME", fixture.base())
        .env("SKILLHOST_CACHE_DIR", cache_dir());
    if let Some(url) = url {
        command.args(["--url", url]);
    }
    let out = output_within(&mut command, Duration::from_secs(300));
    assert!(
        out.status.success(),
        "the Python client failed ({transport}, {mode}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn judge(report: &Value, fixture_user: &str, fixture_model: &str, mode: &str) {
    let version = if mode == "legacy" {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    assert_eq!(report["protocol_version"], version, "{report:#}");
    assert_eq!(
        report["extensions"]["io.modelcontextprotocol/skills"]["directoryRead"],
        true
    );
    assert_eq!(
        report["skills"],
        serde_json::json!([
            "skill://deploy/SKILL.md",
            "skill://notes/SKILL.md",
            "skill://review/SKILL.md"
        ])
    );
    let verified = report["verified"].as_object().unwrap();
    assert_eq!(verified.len(), 4, "every file was read: {verified:?}");
    assert!(
        verified.values().all(|v| v == true),
        "digests: {verified:?}"
    );
    assert_eq!(report["get_matches_list"], true);
    // Prompts come in rank order, and the store of an earlier run may
    // already rank review first: which prompts, not their order, is pinned here.
    let mut prompts: Vec<&str> = report["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    prompts.sort_unstable();
    assert_eq!(prompts, ["deploy", "notes", "review"]);
    assert_eq!(report["prompt_text"], fixture_user);
    assert_eq!(
        report["tools"],
        serde_json::json!(["skill", "search_skills"])
    );
    let description = report["tool_description"].as_str().unwrap();
    assert!(
        description.contains("- review: Review a change"),
        "{description}"
    );
    assert!(!description.contains("- deploy"), "{description}");
    assert_eq!(report["tool_text"], fixture_model);
    assert_eq!(report["tool_error"], false);
    assert_eq!(report["refused_error"], true);
    assert!(
        report["refused_text"]
            .as_str()
            .unwrap()
            .contains("disable-model-invocation")
    );
    assert_eq!(
        report["after_create"],
        serde_json::json!([
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/tools/list_changed"
        ]),
        "a new skill folder changes every list"
    );
    assert_eq!(
        report["after_body_edit"],
        serde_json::json!(["notifications/resources/updated"]),
        "a body-only edit changes no list; its subscriber hears of it"
    );
    assert_eq!(report["skills_after"].as_array().unwrap().len(), 4);
}

fn check(transport: &str, mode: &str) {
    let fixture = fixture();
    let user = invoke(&fixture, &["review", "HEAD~1", "two words", "--as", "user"]);
    let model = invoke(&fixture, &["review", "HEAD~1", "--as", "model"]);
    let report = match transport {
        "http" => {
            let server = Server::start(&fixture, &[]);
            run_client(&fixture, transport, mode, Some(&server.url))
        }
        _ => run_client(&fixture, transport, mode, None),
    };
    judge(&report, &user, &model, mode);
}

#[test]
fn the_python_sdk_over_stdio_with_initialize() {
    check("stdio", "legacy");
}

#[test]
fn the_python_sdk_over_stdio_with_discover_and_listen() {
    check("stdio", "auto");
}

#[test]
fn the_python_sdk_over_http_with_initialize() {
    check("http", "legacy");
}

#[test]
fn the_python_sdk_over_http_with_discover_and_listen() {
    check("http", "auto");
}
