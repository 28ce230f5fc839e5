//! `serve --remote` from the command line: a mirror published with
//! `skillhost mirror`, served by a real nginx, reaches an MCP client with
//! its label as the first segment of every URI.

use crate::support::*;
use crate::usage::call;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

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
    let mut child = fixture
        .command(&["serve", "--no-bundled", "--root", root, "--remote", &remote])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("skillhost serve starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let init = call(
        &mut stdin,
        &lines,
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "remote-test", "version": "1"}}),
    );
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let listed = call(&mut stdin, &lines, 2, "skills/list", json!({}));
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
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
