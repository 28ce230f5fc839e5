//! `skillhost serve` through providers written in Python and JavaScript,
//! granted in a trusted `skillhost.toml`: an MCP client lists their skills
//! (SEP-2640), reads their documents and calls the `skill` tool.

use crate::support::*;
use serde_json::json;
use skillhost_tests::languages::{js_example, python_example};
use skillhost_tests::nginx::Nginx;

fn sha256(path: &std::path::Path) -> String {
    skillhost_skill::digest::sha256_hex(&std::fs::read(path).unwrap())
}

#[test]
fn an_mcp_client_lists_reads_and_invokes_skills_of_python_and_js_providers() {
    let served = tempfile::tempdir().unwrap();
    let listing = json!({"skills": [
        {"name": "js-notes", "frontmatter": {"description": "Takes notes"}, "body": "Write it down.\n"},
    ]});
    std::fs::write(served.path().join("skills.json"), listing.to_string()).unwrap();
    let nginx = Nginx::serve(served.path());
    let fixture = Fixture::new(&[]);
    let (py, js) = (python_example(), js_example());
    let config = format!(
        "bundled = false\n\
         [[provider]]\nid = \"py\"\nwasm = {py:?}\nsha256 = \"{}\"\n\
         [[provider]]\nid = \"js\"\nwasm = {js:?}\nsha256 = \"{}\"\norigins = [\"{}\"]\n\
         settings = {{ url = \"{}skills.json\" }}\n",
        sha256(&py),
        sha256(&js),
        nginx.origin(),
        nginx.url(),
    );
    std::fs::write(fixture.base().join("skillhost.toml"), config).unwrap();
    let trusted = fixture.command(&["trust"]).output().unwrap();
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );

    let mut server = StdioServer::start(&fixture, &[]);
    let listed = server.call("skills/list", json!({}));
    let uris: Vec<&str> = listed["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    for uri in [
        "skill://py-greeting/SKILL.md",
        "skill://py-farewell/SKILL.md",
        "skill://js-notes/SKILL.md",
    ] {
        assert!(uris.contains(&uri), "{uri} not in {uris:?}");
    }
    let read = server.call(
        "resources/read",
        json!({"uri": "skill://js-notes/SKILL.md"}),
    );
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(text.ends_with("Write it down.\n"), "{text}");
    let called = server.call(
        "tools/call",
        json!({"name": "skill", "arguments": {"name": "py-greeting"}}),
    );
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{called}"));
    assert!(text.contains("Say hello."), "{text}");
}
