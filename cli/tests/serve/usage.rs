//! What an MCP client invokes is recorded in the usage store, as
//! `skillhost invoke` records it: a prompt is the user's call, the `skill`
//! tool the model's, and an unknown skill records nothing.

use crate::support::*;
use serde_json::{Value, json};

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
    let mut server = StdioServer::start(
        &fixture,
        &["--no-bundled", "--root", root, "--state", state_arg],
    );
    let tool = server.call(
        "tools/call",
        json!({"name": "skill", "arguments": {"name": "review", "arguments": "HEAD~1"}}),
    );
    assert_eq!(tool["result"]["isError"], json!(false), "{tool}");
    let prompt = server.call(
        "prompts/get",
        json!({"name": "review", "arguments": {"arguments": "main"}}),
    );
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
    let unknown = server.call(
        "tools/call",
        json!({"name": "skill", "arguments": {"name": "no-such-skill"}}),
    );
    assert_eq!(unknown["result"]["isError"], json!(true), "{unknown}");
    drop(server);

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
