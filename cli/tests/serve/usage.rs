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

#[test]
fn serve_ranks_its_tools_and_prompts_by_the_store_and_takes_the_listing_budget() {
    let mut files: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| {
            (
                format!("skill-{i:02}/SKILL.md"),
                format!(
                    "---\nname: skill-{i:02}\ndescription: {}\n---\nBody.\n",
                    "words ".repeat(20)
                )
                .into_bytes(),
            )
        })
        .collect();
    files.push((
        "zeta/SKILL.md".into(),
        b"---\nname: zeta\ndescription: Used most\n---\nZeta.\n".to_vec(),
    ));
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let fixture = Fixture::new(&refs);
    let state = fixture.base().join("state");
    let root = fixture.root.to_str().unwrap();
    let state_arg = state.to_str().unwrap();
    let args = ["--no-bundled", "--root", root, "--state", state_arg];
    let mut server = StdioServer::start(&fixture, &args);
    for _ in 0..2 {
        let called = server.call(
            "tools/call",
            json!({"name": "skill", "arguments": {"name": "zeta"}}),
        );
        assert_eq!(called["result"]["isError"], json!(false), "{called}");
    }
    drop(server);

    // A new server reads the store: zeta ranks first everywhere.
    let budgeted = [&args[..], &["--listing-budget", "200"]].concat();
    let mut server = StdioServer::start(&fixture, &budgeted);
    let tools = server.call("tools/list", json!({}));
    let description = tools["result"]["tools"][0]["description"].as_str().unwrap();
    let listing = description
        .split("<available_skills>\n")
        .nth(1)
        .and_then(|rest| rest.split("\n</available_skills>").next())
        .unwrap();
    assert!(listing.chars().count() <= 200, "{listing}");
    // Names alone do not fit: every description went before any name did.
    assert!(listing.starts_with("- zeta\n- skill-00\n"), "{listing}");
    assert!(
        listing.ends_with("more not listed: call search_skills to find them)"),
        "{listing}"
    );
    let prompts = server.call("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "zeta", "{prompts}");
    let found = server.call(
        "tools/call",
        json!({"name": "search_skills", "arguments": {}}),
    );
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.lines().nth(1).unwrap().starts_with("- zeta:"),
        "{text}"
    );
}
