//! An agent's session from the command line: watch, inject, touch, invoke.

use super::{skillhost, stdout};
use std::process::Command;

#[test]
fn watch_prints_the_catalog_again_only_when_it_changes() {
    use std::io::{BufRead, BufReader};
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let skill = |name: &str, description: &str, body: &str| {
        std::fs::create_dir_all(root.path().join(name)).unwrap();
        std::fs::write(
            root.path().join(name).join("SKILL.md"),
            format!("---\ndescription: {description}\n---\n{body}\n"),
        )
        .unwrap();
    };
    skill("first", "Already there", "body");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args([
            "watch",
            "--json",
            "--no-bundled",
            "--root",
            root.path().to_str().unwrap(),
        ])
        .env("HOME", home.path())
        .env("SKILLHOST_CACHE_DIR", crate::process_cache_dir())
        .env("SKILLHOST_STATE_DIR", crate::state_in(home.path()))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let next = |what: &str| -> serde_json::Value {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no catalog line for {what}"));
        serde_json::from_str(&line).unwrap()
    };
    let names = |catalog: &serde_json::Value| -> Vec<String> {
        catalog["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&next("the start")), ["first"]);
    skill("second", "Added while watching", "body");
    assert_eq!(names(&next("a new skill")), ["first", "second"]);
    skill("second", "Added while watching", "only the body changed");
    assert!(
        rx.recv_timeout(std::time::Duration::from_millis(500))
            .is_err(),
        "a body-only edit prints nothing"
    );
    skill("second", "Reworded", "body");
    let catalog = next("a description change");
    let second = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "second")
        .unwrap();
    assert_eq!(second["description"], "Reworded");
    child.kill().unwrap();
    let _ = child.wait();
}

/// A project with a conditional skill, a fork skill and a user-only skill.
fn agent_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join(".claude/skills");
    for (name, text) in [
        (
            "greet",
            "---\ndescription: Greets someone\naliases: [hi]\n---\nHello, $ARGUMENTS!\n",
        ),
        (
            "review",
            "---\ndescription: Reviews a change\ncontext: fork\nallowed-tools: Read, Grep\n---\nReview $0.\n",
        ),
        (
            "deploy",
            "---\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy ${SESSION_ID}.\n",
        ),
        (
            "tsx",
            "---\ndescription: TSX helper\npaths: src/**/*.tsx\n---\nHelp.\n",
        ),
    ] {
        std::fs::create_dir_all(skills.join(name)).unwrap();
        std::fs::write(skills.join(name).join("SKILL.md"), text).unwrap();
    }
    std::fs::create_dir_all(skills.join("greet/scripts")).unwrap();
    std::fs::write(skills.join("greet/scripts/wave.sh"), "echo wave\n").unwrap();
    dir
}

#[test]
fn inject_appends_a_catalog_only_when_the_models_view_changes() {
    let project = agent_project();
    let home = tempfile::tempdir().unwrap();
    let session = project.path().join("session.jsonl");
    let session = session.to_str().unwrap();
    // The bundled skills would never leave: this test empties the catalog.
    let run = |args: &[&str]| {
        let args = [args, &["--no-bundled"]].concat();
        let out = skillhost(&args, project.path(), home.path());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out).trim().to_string()
    };
    assert_eq!(run(&["inject", "--session", session]), "published");
    assert_eq!(run(&["inject", "--session", session]), "unchanged");
    let log = std::fs::read_to_string(project.path().join("session.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1);
    let event: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(event["type"], "skill-catalog");
    assert_eq!(event["visible"], true);
    assert!(event["digest"].as_str().unwrap().starts_with("sha256:"));
    let content = event["content"].as_str().unwrap();
    assert!(
        content.contains("- greet: Greets someone")
            && content.contains("- review: Reviews a change")
    );
    assert!(
        !content.contains("deploy") && !content.contains("tsx"),
        "{content}"
    );
    assert_eq!(
        run(&[
            "inject",
            "--session",
            session,
            "--mode",
            "delta",
            "--agent",
            "sub"
        ]),
        "published"
    );
    assert_eq!(
        run(&[
            "inject",
            "--session",
            session,
            "--mode",
            "delta",
            "--agent",
            "sub"
        ]),
        "unchanged"
    );
    std::fs::remove_dir_all(project.path().join(".claude")).unwrap();
    assert_eq!(run(&["inject", "--session", session]), "tombstone");
    let empty = project.path().join("fresh.jsonl");
    assert_eq!(
        run(&["inject", "--session", empty.to_str().unwrap()]),
        "none"
    );
}

#[test]
fn touch_prints_the_reminder_and_invoke_then_finds_the_skill() {
    let project = agent_project();
    let home = tempfile::tempdir().unwrap();
    let session = project.path().join("session.jsonl");
    let session = session.to_str().unwrap();
    let cwd = project.path().to_str().unwrap();
    let out = skillhost(
        &["invoke", "tsx", "--as", "user", "--session", session],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1), "not active yet");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("is not active yet"), "{said}");
    let out = skillhost(
        &["touch", "--session", session, "--cwd", cwd, "README.md"],
        project.path(),
        home.path(),
    );
    assert!(out.status.success());
    assert_eq!(stdout(&out), "", "nothing matched");
    let out = skillhost(
        &[
            "touch",
            "--session",
            session,
            "--cwd",
            cwd,
            "src/ui/Button.tsx",
        ],
        project.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains("- tsx: TSX helper"),
        "{}",
        stdout(&out)
    );
    let out = skillhost(
        &["invoke", "tsx", "--as", "user", "--session", session],
        project.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&out).ends_with("\n\nHelp.\n"), "{}", stdout(&out));
}

#[test]
fn invoke_expands_inline_skills_plans_forks_and_explains_refusals() {
    let project = agent_project();
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["invoke", "hi", "Ann", "--as", "model"],
        project.path(),
        home.path(),
    );
    assert!(out.status.success());
    // Seed 001's frame: title, base directory, the skill's files, body.
    let base = std::fs::canonicalize(project.path())
        .unwrap()
        .join(".claude/skills/greet");
    assert_eq!(
        stdout(&out),
        format!(
            "# Skill: greet (Greets someone)\n\nBase directory: {}\nFiles:\n- scripts/wave.sh\n\n\
             Hello, Ann!\n",
            base.display()
        )
    );
    let out = skillhost(
        &["invoke", "review", "HEAD", "--as", "model"],
        project.path(),
        home.path(),
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["context"], "fork");
    assert_eq!(plan["prompt"], "Review HEAD.\n");
    assert_eq!(plan["allowed_tools"], serde_json::json!(["Read", "Grep"]));
    assert!(plan["max_steps"].as_u64().unwrap() <= 10);
    let out = skillhost(
        &["invoke", "deploy", "--as", "model"],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the model may not invoke it"));
    let out = skillhost(
        &[
            "invoke",
            "deploy",
            "--as",
            "user",
            "--session-id",
            "s1",
            "--json",
        ],
        project.path(),
        home.path(),
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["text"], "Deploy s1.\n");
    let out = skillhost(
        &["invoke", "nope", "--as", "user"],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("none has a similar name ("), "{said}");
    assert!(!said.contains("greet"), "not the whole catalog: {said}");
    let out = skillhost(
        &["invoke", "deplyo", "--as", "user"],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("did you mean deploy?"), "{said}");
}
