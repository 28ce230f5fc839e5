//! The `skillhost` binary, run as a user would: real folders, real output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn skillhost(args: &[&str], cwd: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache"),
        )
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn examples() -> String {
    workspace().join("examples/skills").display().to_string()
}

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
fn loading_an_unknown_skill_fails_and_lists_what_exists() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["load", "nope", "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no skill named \"nope\""), "{err}");
    assert!(err.contains("code-review, commit-messages"), "{err}");
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
fn bench_prints_the_ratio_line_last() {
    let home = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["bench", "--skills", "20", "--rounds", "1"],
        &workspace(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("ratio sandboxed/native: cold "), "{text}");
    let numbers: Vec<f64> = last
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 2, "{last}");
    assert!(numbers.iter().all(|n| *n > 0.0 && n.is_finite()), "{last}");
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args(["catalog", "--json", "--root", &examples()])
        .env("HOME", home.path())
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache"),
        )
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
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache"),
        )
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
    assert_eq!(stdout(&out), "Help.\n");
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
    assert_eq!(stdout(&out), "Hello, Ann!\n");
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("available: deploy, greet, review"));
}

#[test]
fn every_command_reads_skillhost_toml_or_the_file_given_with_config() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("team/ops")).unwrap();
    std::fs::write(
        dir.path().join("team/ops/SKILL.md"),
        "---\ndescription: Configured root\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"team\"]\n",
    )
    .unwrap();
    let out = skillhost(&["catalog", "--json"], dir.path(), home.path());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["skills"][0]["name"], "ops");
    let elsewhere = tempfile::tempdir().unwrap();
    let config = dir.path().join("skillhost.toml");
    let out = skillhost(
        &["load", "ops", "--config", config.to_str().unwrap()],
        elsewhere.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "body\n");
}

#[test]
fn a_bad_configuration_names_the_key_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"x\"]\nmemroy_mib = 5\n",
    )
    .unwrap();
    let out = skillhost(&["catalog"], dir.path(), home.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skillhost.toml:4: memroy_mib: unknown field"),
        "{err}"
    );
}

fn names_in(json: &serde_json::Value) -> Vec<String> {
    json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn mirror_publishes_once_and_catalog_reads_it_back_over_nginx() {
    let home = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let out_dir = site.path().join("public");
    let out_arg = out_dir.display().to_string();
    let published = skillhost(
        &["mirror", &examples(), "--out", &out_arg],
        &workspace(),
        home.path(),
    );
    assert!(published.status.success(), "{published:?}");
    let text = stdout(&published);
    assert!(text.starts_with("published "), "{text}");
    // Unchanged roots: nothing is written again.
    let again = skillhost(
        &["mirror", &examples(), "--out", &out_arg, "--json"],
        &workspace(),
        home.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["written"], serde_json::json!([]), "{report}");
    assert_eq!(report["removed"], serde_json::json!([]));
    let nginx = skillhost_tests::nginx::Nginx::serve(&out_dir);
    let empty = tempfile::tempdir().unwrap();
    let local = skillhost(
        &["catalog", "--root", &examples(), "--no-bundled", "--json"],
        &workspace(),
        home.path(),
    );
    let local: serde_json::Value = serde_json::from_slice(&local.stdout).unwrap();
    let remote_arg = format!("team={}", nginx.url());
    let remote = skillhost(
        &[
            "catalog",
            "--root",
            &empty.path().display().to_string(),
            "--remote",
            &remote_arg,
            "--no-bundled",
            "--json",
        ],
        &workspace(),
        home.path(),
    );
    assert!(remote.status.success(), "{remote:?}");
    let remote: serde_json::Value = serde_json::from_slice(&remote.stdout).unwrap();
    assert_eq!(remote["complete"], true, "{remote}");
    let expected: Vec<String> = names_in(&local)
        .iter()
        .map(|n| format!("team:{n}"))
        .collect();
    assert_eq!(names_in(&remote), expected);
    // The label defaults to the URL's host; loading prints the body.
    let first = names_in(&local)[0].clone();
    let loaded = skillhost(
        &[
            "load",
            &format!("127.0.0.1:{first}"),
            "--root",
            &empty.path().display().to_string(),
            "--remote",
            &nginx.url(),
        ],
        &workspace(),
        home.path(),
    );
    assert!(loaded.status.success(), "{loaded:?}");
    let local_body = skillhost(
        &["load", &first, "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert_eq!(stdout(&loaded), stdout(&local_body));
}

#[test]
fn bundled_skills_come_last_and_can_be_left_out() {
    let home = tempfile::tempdir().unwrap();
    let with = skillhost(
        &["catalog", "--root", &examples(), "--json"],
        &workspace(),
        home.path(),
    );
    let with: serde_json::Value = serde_json::from_slice(&with.stdout).unwrap();
    let authoring = with["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "skill-authoring")
        .unwrap_or_else(|| panic!("{with}"));
    assert_eq!(authoring["scope"], "bundled");
    let without = skillhost(
        &["catalog", "--root", &examples(), "--json", "--no-bundled"],
        &workspace(),
        home.path(),
    );
    let without: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    assert!(!names_in(&without).contains(&"skill-authoring".to_string()));
    let body = skillhost(&["load", "skill-authoring"], home.path(), home.path());
    assert!(body.status.success(), "{body:?}");
    assert!(stdout(&body).contains("description"), "{}", stdout(&body));
}

#[test]
fn a_configured_remote_source_is_read_with_its_label() {
    let home = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let published = skillhost(
        &[
            "mirror",
            &examples(),
            "--out",
            &site.path().display().to_string(),
        ],
        &workspace(),
        home.path(),
    );
    assert!(published.status.success(), "{published:?}");
    let nginx = skillhost_tests::nginx::Nginx::serve(site.path());
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("skillhost.toml"),
        format!(
            "bundled = false\n\n[[provider]]\nbuiltin = \"remote\"\nurl = \"{}index.json\"\nlabel = \"shared\"\npoll_seconds = 30\n",
            nginx.url()
        ),
    )
    .unwrap();
    let out = skillhost(&["catalog", "--json"], project.path(), home.path());
    assert!(out.status.success(), "{out:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names = names_in(&catalog);
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with("shared:")),
        "{names:?}"
    );
    assert_eq!(catalog["skills"][0]["source"], "remote:shared");
}

#[test]
fn a_root_that_does_not_exist_is_an_empty_complete_source() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("not/yet");
    let out = skillhost(
        &[
            "catalog",
            "--json",
            "--no-bundled",
            "--root",
            &missing.display().to_string(),
        ],
        home.path(),
        home.path(),
    );
    assert!(out.status.success(), "{out:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        catalog,
        serde_json::json!({"complete": true, "skills": [], "diagnostics": []})
    );
}
