//! Reading skills: catalog, load, validate, and the bench's report.

use super::{examples, skillhost, stdout, workspace};
use std::path::Path;
use std::process::Command;

#[test]
fn catalog_lists_the_example_skills() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["catalog", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    for name in [
        "code-review",
        "commit-messages",
        "release-notes",
        "rust-testing",
        "writing-skill-md",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    // The five examples, then the three bundled skills.
    assert!(text.contains("8 skill(s)"), "{text}");
    assert!(text.contains("skill-authoring"), "{text}");
}

#[test]
fn catalog_json_has_the_documented_shape() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["catalog", "--json", "--no-bundled", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["complete"], true);
    assert_eq!(value["diagnostics"], serde_json::json!([]));
    let skills = value["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 5);
    let review = skills.iter().find(|s| s["name"] == "code-review").unwrap();
    for key in [
        "name",
        "description",
        "source",
        "path",
        "frontmatter",
        "when_to_use",
        "user_invocable",
        "model_invocable",
        "context",
        "allowed_tools",
        "paths",
        "aliases",
    ] {
        assert!(review.get(key).is_some(), "missing {key}");
    }
    assert_eq!(review["context"], "fork");
    assert_eq!(
        review["allowed_tools"],
        serde_json::json!(["Read", "Grep", "Bash(git diff:*)"])
    );
    assert_eq!(review["frontmatter"]["agent"], "reviewer");
    assert!(
        review["path"]
            .as_str()
            .unwrap()
            .ends_with("examples/skills/code-review/SKILL.md")
    );
    let testing = skills.iter().find(|s| s["name"] == "rust-testing").unwrap();
    assert_eq!(
        testing["paths"],
        serde_json::json!(["**/*.rs", "**/Cargo.toml"])
    );
    let notes = skills
        .iter()
        .find(|s| s["name"] == "release-notes")
        .unwrap();
    assert_eq!(notes["model_invocable"], false);
}

#[test]
fn catalog_without_roots_reads_project_then_user_roots() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let write = |dir: &Path, name: &str, description: &str| {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(
            dir.join(name).join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
        )
        .unwrap();
    };
    write(
        &project.path().join(".claude/skills"),
        "shared",
        "from the project",
    );
    write(
        &home.path().join(".agents/skills"),
        "shared",
        "from the user",
    );
    write(
        &home.path().join(".agents/skills"),
        "personal",
        "only the user's",
    );
    let out = skillhost(&["catalog", "--json"], project.path(), home.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let skills = value["skills"].as_array().unwrap();
    let shared = skills.iter().find(|s| s["name"] == "shared").unwrap();
    assert_eq!(shared["description"], "from the project");
    assert!(skills.iter().any(|s| s["name"] == "personal"));
    let diagnostics = value["diagnostics"].as_array().unwrap();
    assert!(
        diagnostics
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("shadowed"))
    );
}

#[test]
fn load_prints_the_body_and_json_carries_it() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["load", "commit-messages", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.starts_with("\n# Commit messages") || text.starts_with("# Commit messages"),
        "{text}"
    );
    assert!(
        !text.contains("description:"),
        "the frontmatter is not part of the body"
    );
    let out = skillhost(
        &["load", "commit-messages", "--json", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(value["body"].as_str().unwrap().contains("$ARGUMENTS"));
    assert_eq!(value["argument_hint"], "[summary of the change]");
}

#[test]
fn loading_an_unknown_skill_fails_naming_the_near_ones_not_all() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["load", "nope", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no skill named \"nope\""), "{err}");
    assert!(!err.contains("code-review"), "not the whole catalog: {err}");
    let out = skillhost(
        &["load", "code-reveiw", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean code-review?"), "{err}");
}

#[test]
fn validate_accepts_the_examples() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(&["validate", &examples()], &workspace(), home.path());
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("5 skill(s) valid"));
}

#[test]
fn the_bundled_skills_pass_the_strict_rules() {
    let home = tempfile::tempdir().unwrap();
    let bundled = workspace().join("providers/bundled/skills");
    let out = skillhost(
        &["validate", &bundled.display().to_string()],
        &workspace(),
        home.path(),
    );
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("3 skill(s) valid"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn validate_reports_every_problem_as_path_field_message_and_exits_one() {
    let root = tempfile::tempdir().unwrap();
    let bad = root.path().join("Bad_Name");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("SKILL.md"),
        format!(
            "---\nname: Bad_Name\ndescription: {}\ncompatibility: {}\n---\n",
            "d".repeat(1100),
            "c".repeat(501)
        ),
    )
    .unwrap();
    let broken = root.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("SKILL.md"), "---\nname: broken\n").unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["validate", root.path().to_str().unwrap()],
        &workspace(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let bad_file = std::fs::canonicalize(bad.join("SKILL.md")).unwrap();
    let bad_file = bad_file.display();
    assert!(
        text.contains(&format!("{bad_file}: name: contains 'B'")),
        "{text}"
    );
    assert!(
        text.contains(&format!("{bad_file}: description: has 1100 characters")),
        "{text}"
    );
    assert!(
        text.contains(&format!("{bad_file}: compatibility: has 501 characters")),
        "{text}"
    );
    assert!(
        text.contains("broken/SKILL.md: file: line 1: frontmatter opened"),
        "{text}"
    );

    let out = skillhost(
        &["validate", "--json", bad.to_str().unwrap()],
        &workspace(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        value["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["path"].as_str().unwrap().ends_with("Bad_Name/SKILL.md"))
    );
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(["catalog", "--json", "--root", &examples()])
        .env("HOME", home.path())
        .env("SKILLHOST_CACHE_DIR", crate::process_cache_dir())
        .env("SKILLHOST_STATE_DIR", crate::state_in(home.path()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
