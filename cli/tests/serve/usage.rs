//! What an MCP client invokes is recorded in the usage store, as
//! `skillhost invoke` records it: a prompt is the user's call, the `skill`
//! tool the model's, and an unknown skill records nothing.

use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

/// One JSON-RPC exchange per request over the server's stdio, answers
/// matched by id (notifications the server sends meanwhile are skipped).
pub fn call(
    stdin: &mut impl Write,
    lines: &std::sync::mpsc::Receiver<String>,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to {method}"));
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == json!(id) {
            return message;
        }
    }
}

#[test]
fn prompts_and_the_skill_tool_are_recorded_as_the_users_and_the_models_calls() {
    let fixture = Fixture::new(&[
        (
            "review/SKILL.md",
            b"---\nname: review\ndescription: Review a change\n---\nReview $ARGUMENTS.\n",
        ),
        (
            "deploy/SKILL.md",
            b"---\nname: deploy\ndescription: Deploy it\n---\nDeploy.\n",
        ),
    ]);
    let state = fixture.base().join("state");
    let root = fixture.root.to_str().unwrap();
    let state_arg = state.to_str().unwrap();
    let mut child = fixture
        .command(&[
            "serve",
            "--no-bundled",
            "--root",
            root,
            "--state",
            state_arg,
        ])
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
               "clientInfo": {"name": "usage-test", "version": "1"}}),
    );
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let tool = call(
        &mut stdin,
        &lines,
        2,
        "tools/call",
        json!({"name": "skill", "arguments": {"name": "review", "arguments": "HEAD~1"}}),
    );
    assert_eq!(tool["result"]["isError"], json!(false), "{tool}");
    let prompt = call(
        &mut stdin,
        &lines,
        3,
        "prompts/get",
        json!({"name": "review", "arguments": {"arguments": "main"}}),
    );
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
    let unknown = call(
        &mut stdin,
        &lines,
        4,
        "tools/call",
        json!({"name": "skill", "arguments": {"name": "no-such-skill"}}),
    );
    assert_eq!(unknown["result"]["isError"], json!(true), "{unknown}");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();

    let out = fixture
        .command(&[
            "usage",
            "--no-bundled",
            "--root",
            root,
            "--state",
            state_arg,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skills = report["skills"].as_array().unwrap();
    let count = |name: &str| {
        skills
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["count"].clone())
    };
    assert_eq!(count("review"), Some(json!(2)), "{report}");
    assert_eq!(count("deploy"), Some(json!(0)), "{report}");
    assert_eq!(count("no-such-skill"), None, "{report}");
}
