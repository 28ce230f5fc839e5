//! `serve --remote` from the command line: a mirror published with
//! `skillhost mirror`, served by a real nginx, reaches an MCP client with
//! its label as the first segment of every URI.

use crate::support::*;
use serde_json::{Value, json};

#[test]
fn a_remote_given_on_the_command_line_is_served_under_its_label() {
    let fixture = Fixture::new(&[]);
    let examples = workspace().join("examples/skills");
    let site = fixture.base().join("site");
    let published = fixture
        .command(&[
            "mirror",
            examples.to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(published.status.success(), "{published:?}");
    let nginx = skillhost_tests::nginx::Nginx::serve(&site);
    let remote = format!("team={}", nginx.url());
    let root = fixture.root.to_str().unwrap();
    let mut server = StdioServer::start(
        &fixture,
        &["--no-bundled", "--root", root, "--remote", &remote],
    );
    let listed = server.call("skills/list", json!({}));
    drop(server);
    let skills = listed["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"));
    let local = fixture
        .command(&[
            "catalog",
            "--no-bundled",
            "--root",
            examples.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    let local: Value = serde_json::from_slice(&local.stdout).unwrap();
    let expected = local["skills"].as_array().map_or(0, Vec::len);
    assert!(expected > 0, "{local}");
    assert_eq!(skills.len(), expected, "{listed}");
    assert!(
        skills.iter().all(|s| s["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("skill://team/"))),
        "{listed}"
    );
}
