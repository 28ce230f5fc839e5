//! What each audience sees (`catalog --for user|model`), `--json` on every
//! command, and `validate --profile`.

use super::{skillhost, stdout};
use std::path::Path;
use std::process::Output;

/// A project: a slash command with an argument hint, one hidden from users,
/// one hidden from the model, and a conditional one.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join(".claude/skills");
    for (name, text) in [
        (
            "review",
            "---\ndescription: Reviews a change\nargument-hint: \"[commit]\"\n---\nReview $0.\n",
        ),
        (
            "background",
            "---\ndescription: Conventions the model keeps in mind\nuser-invocable: false\n---\nUse tabs.\n",
        ),
        (
            "deploy",
            "---\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy.\n",
        ),
        (
            "tsx",
            "---\ndescription: TSX helper\npaths: src/**/*.tsx\n---\nHelp.\n",
        ),
    ] {
        std::fs::create_dir_all(skills.join(name)).unwrap();
        std::fs::write(skills.join(name).join("SKILL.md"), text).unwrap();
    }
    dir
}

fn run(args: &[&str], cwd: &Path) -> Output {
    let home = tempfile::tempdir().unwrap();
    let args = [args, &["--no-bundled"]].concat();
    let out = skillhost(&args, cwd, home.path());
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

#[test]
fn catalog_for_user_lists_the_slash_commands_a_person_may_type() {
    let project = project();
    let text = stdout(&run(&["catalog", "--for", "user"], project.path()));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("{:16}  Deploys", "/deploy"), "{text}");
    assert_eq!(lines[1], "/review [commit]  Reviews a change", "{text}");
    assert!(text.contains("2 command(s)"), "{text}");
    assert!(
        !text.contains("background"),
        "user-invocable: false is left out"
    );
    assert!(
        !text.contains("tsx"),
        "a conditional skill not yet active is left out"
    );

    let value = json(&run(
        &["catalog", "--for", "user", "--json"],
        project.path(),
    ));
    assert_eq!(value["complete"], true);
    assert_eq!(
        value["commands"],
        serde_json::json!([
            {"name": "deploy", "argument_hint": null, "description": "Deploys"},
            {"name": "review", "argument_hint": "[commit]", "description": "Reviews a change"},
        ])
    );
}

#[test]
fn catalog_for_model_prints_exactly_what_inject_publishes() {
    let project = project();
    let session = project.path().join("s.jsonl");
    let session = session.to_str().unwrap();
    let cwd = project.path().to_str().unwrap();
    let listing = stdout(&run(&["catalog", "--for", "model"], project.path()));
    run(&["inject", "--session", session], project.path());
    let published = |line: usize| -> String {
        let log = std::fs::read_to_string(project.path().join("s.jsonl")).unwrap();
        let event: serde_json::Value =
            serde_json::from_str(log.lines().nth(line).unwrap()).unwrap();
        event["content"].as_str().unwrap().to_string()
    };
    assert_eq!(listing, format!("{}\n", published(0)));
    assert!(listing.contains("- background: Conventions"), "{listing}");
    assert!(
        !listing.contains("deploy") && !listing.contains("tsx"),
        "{listing}"
    );

    // A session's activations count for both.
    run(
        &["touch", "--session", session, "--cwd", cwd, "src/App.tsx"],
        project.path(),
    );
    let listing = stdout(&run(
        &["catalog", "--for", "model", "--session", session],
        project.path(),
    ));
    assert!(listing.contains("- tsx: TSX helper"), "{listing}");
    run(&["inject", "--session", session], project.path());
    assert_eq!(listing, format!("{}\n", published(2)));

    let value = json(&run(
        &["catalog", "--for", "model", "--session", session, "--json"],
        project.path(),
    ));
    assert_eq!(value["content"], published(2));
    // The skill the touched file activated leads the listing.
    assert_eq!(
        value["skills"],
        serde_json::json!(["tsx", "background", "review"])
    );
    assert!(value["digest"].as_str().unwrap().starts_with("sha256:"));
}

#[test]
fn inject_and_touch_print_json() {
    let project = project();
    let session = project.path().join("s.jsonl");
    let session = session.to_str().unwrap();
    let cwd = project.path().to_str().unwrap();
    let first = json(&run(
        &["inject", "--session", session, "--json"],
        project.path(),
    ));
    assert_eq!(first["outcome"], "published");
    assert_eq!(first["mode"], "replace");
    assert_eq!(first["agent"], serde_json::Value::Null);
    assert_eq!(first["event"]["type"], "skill-catalog");
    assert!(
        first["event"]["content"]
            .as_str()
            .unwrap()
            .contains("- review:")
    );
    let again = json(&run(
        &["inject", "--session", session, "--json"],
        project.path(),
    ));
    assert_eq!(again["outcome"], "unchanged");
    assert_eq!(again["event"], serde_json::Value::Null);
    let delta = json(&run(
        &[
            "inject",
            "--session",
            session,
            "--mode",
            "delta",
            "--agent",
            "sub",
            "--json",
        ],
        project.path(),
    ));
    assert_eq!(delta["outcome"], "published");
    assert_eq!(delta["agent"], "sub");
    assert_eq!(delta["event"]["type"], "skill-catalog-delta");

    let touched = json(&run(
        &[
            "touch",
            "--session",
            session,
            "--cwd",
            cwd,
            "README.md",
            "--json",
        ],
        project.path(),
    ));
    assert_eq!(
        touched,
        serde_json::json!({"activated": [], "discovered": [], "reminder": null})
    );
    let touched = json(&run(
        &[
            "touch",
            "--session",
            session,
            "--cwd",
            cwd,
            "src/App.tsx",
            "--json",
        ],
        project.path(),
    ));
    assert_eq!(touched["activated"], serde_json::json!(["tsx"]));
    assert!(
        touched["reminder"]
            .as_str()
            .unwrap()
            .contains("- tsx: TSX helper"),
        "{touched}"
    );
}

#[test]
fn every_command_takes_json() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&skillhost(&["--help"], dir.path(), dir.path()));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 9, "{help}");
    for command in commands {
        let out = skillhost(&[command, "--help"], dir.path(), dir.path());
        assert!(
            stdout(&out).contains("--json"),
            "{command} has no --json:\n{}",
            stdout(&out)
        );
    }
}

#[test]
fn validate_takes_a_profile_and_reports_severities_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("навык");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: навык\ndescription: d\nargument-hint: x\n---\n",
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let path = skill.to_str().unwrap();
    // The spec's profile: a Unicode name is fine, a Claude Code field is not.
    let out = skillhost(
        &["validate", "--profile", "agentskills", "--json", path],
        dir.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["profile"], "agentskills");
    assert_eq!(value["valid"], false);
    assert_eq!(value["errors"], 1);
    assert_eq!(value["problems"][0]["field"], "argument-hint");
    assert_eq!(value["problems"][0]["severity"], "error");
    // The default profile: the other way round.
    let out = skillhost(&["validate", "--json", path], dir.path(), home.path());
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["profile"], "claude");
    assert_eq!(value["problems"][0]["field"], "name");
    let out = skillhost(
        &["validate", "--profile", "strict", path],
        dir.path(),
        home.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown profile is a usage error"
    );
}

#[test]
fn validate_fails_when_a_path_yields_no_skill_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "test").unwrap();
    for (path, reason) in [
        ("empty", "no SKILL.md in"),
        ("notes.txt", "not a Markdown file"),
        ("missing", "does not exist"),
    ] {
        let out = skillhost(&["validate", path], dir.path(), home.path());
        assert_eq!(out.status.code(), Some(1), "{path}");
        assert!(stdout(&out).contains(reason), "{path}: {}", stdout(&out));
    }
}

#[test]
fn a_warning_alone_does_not_fail_validation() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("notes");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Take notes\nfavourite-colour: blue\n---\n",
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["validate", skill.to_str().unwrap()],
        dir.path(),
        home.path(),
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("favourite-colour: warning: is not a field"),
        "{text}"
    );
    assert!(text.contains("1 skill(s) valid, 1 warning(s)"), "{text}");
}

#[test]
fn with_a_store_holding_data_catalog_for_model_inject_and_search_rank_alike() {
    let project = project();
    let state = project.path().join("state");
    let state = state.to_str().unwrap();
    let session = project.path().join("s.jsonl");
    let session = session.to_str().unwrap();
    // Used skills list first; without use, "background" sorts before "review".
    for _ in 0..3 {
        run(
            &[
                "invoke", "review", "HEAD", "--as", "model", "--state", state,
            ],
            project.path(),
        );
    }
    let model = json(&run(
        &["catalog", "--for", "model", "--json", "--state", state],
        project.path(),
    ));
    assert_eq!(model["skills"], serde_json::json!(["review", "background"]));
    let injected = json(&run(
        &["inject", "--session", session, "--json", "--state", state],
        project.path(),
    ));
    assert_eq!(injected["event"]["digest"], model["digest"]);
    assert_eq!(injected["event"]["content"], model["content"]);
    let found = json(&run(
        &["catalog", "--search", "", "--json", "--state", state],
        project.path(),
    ));
    assert_eq!(found["skills"][0]["name"], "review");
    assert_eq!(found["matched"], 2);
    // Without the store, the order is by name again: the store decided.
    let unranked = json(&run(
        &["catalog", "--for", "model", "--json"],
        project.path(),
    ));
    assert_eq!(
        unranked["skills"],
        serde_json::json!(["background", "review"])
    );
}

#[test]
fn catalog_search_pages_through_what_the_model_may_see() {
    let project = project();
    let text = stdout(&run(&["catalog", "--search", "change"], project.path()));
    assert_eq!(
        text,
        "1 of 2 skills match \"change\" (page 1 of 1):\n- review: Reviews a change\n"
    );
    let none = stdout(&run(&["catalog", "--search", "deploy"], project.path()));
    assert!(
        none.starts_with("0 of 2 skills match \"deploy\""),
        "a skill the model may not invoke is not found: {none}"
    );
}

#[test]
fn the_listing_budget_is_set_by_a_flag_a_context_size_or_the_configuration() {
    let project = project();
    let many = project.path().join(".claude/skills");
    for i in 0..40 {
        let dir = many.join(format!("extra-{i:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\ndescription: {}\n---\nbody\n", "words ".repeat(30)),
        )
        .unwrap();
    }
    let chars = |args: &[&str]| -> usize {
        let value = json(&run(args, project.path()));
        let content = value["content"].as_str().unwrap();
        content
            .trim_start_matches("<available_skills>\n")
            .trim_end_matches("\n</available_skills>")
            .chars()
            .count()
    };
    let default = chars(&["catalog", "--for", "model", "--json"]);
    assert!(default > 2_000 && default <= 8_000, "{default}");
    assert!(
        chars(&[
            "catalog",
            "--for",
            "model",
            "--json",
            "--listing-budget",
            "600"
        ]) <= 600
    );
    let small = chars(&[
        "catalog",
        "--for",
        "model",
        "--json",
        "--context-tokens",
        "20000",
    ]);
    assert!(
        small <= 800,
        "1% of 20,000 tokens is 800 characters: {small}"
    );
    let config = project.path().join("skillhost.toml");
    std::fs::write(
        &config,
        "[listing]\nbudget = 500\n\n[[provider]]\nbuiltin = \"local\"\nroots = [\".claude/skills\"]\n",
    )
    .unwrap();
    let configured = chars(&[
        "catalog",
        "--config",
        config.to_str().unwrap(),
        "--for",
        "model",
        "--json",
    ]);
    assert!(configured <= 500, "{configured}");
    let home = tempfile::tempdir().unwrap();
    let both = skillhost(
        &[
            "catalog",
            "--for",
            "model",
            "--listing-budget",
            "600",
            "--context-tokens",
            "20000",
        ],
        project.path(),
        home.path(),
    );
    assert!(!both.status.success(), "one or the other");
}
