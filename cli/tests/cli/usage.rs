//! Skills that learn from use, from the command line: record, learn,
//! usage, curate, invocations recorded, the ranked listing, and the idle
//! runner inside watch. Every test uses its own state folder.

use super::{skillhost, stdout, workspace};
use skillhost_usage::clock::days;
use skillhost_usage::{ManualClock, UsageStore};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

struct Env {
    cwd: tempfile::TempDir,
    home: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            cwd: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn state(&self) -> &str {
        self.state.path().to_str().unwrap()
    }

    fn db(&self) -> PathBuf {
        self.state.path().join("usage.db")
    }

    /// Runs `args` with `--state` pointing at this environment's folder.
    fn run(&self, args: &[&str]) -> Output {
        let args = [args, &["--state", self.state()]].concat();
        skillhost(&args, self.cwd.path(), self.home.path())
    }

    /// Runs a command that has no `--state`.
    fn plain(&self, args: &[&str]) -> Output {
        skillhost(args, self.cwd.path(), self.home.path())
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(args)).unwrap()
    }

    /// A skill in the project's `.claude/skills`.
    fn skill(&self, name: &str, frontmatter: &str) {
        let dir = self.cwd.path().join(".claude/skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\n{frontmatter}\n---\nBody of {name}: $ARGUMENTS\n"),
        )
        .unwrap();
    }
}

const SEQUENCE: [&str; 3] = ["search_papers", "download_paper", "rag_search"];

fn record_sessions(env: &Env, sessions: usize) {
    for s in 0..sessions {
        let session = format!("s{s}");
        let noise = format!("noise_{s}");
        let tools = [&[noise.as_str()][..], &SEQUENCE[..], &[noise.as_str()][..]].concat();
        let out = env.ok(&[&["record", "--session", &session][..], &tools[..]].concat());
        assert_eq!(
            out.trim(),
            format!("recorded 5 tool call(s) for session {session}")
        );
    }
}

fn tree_of(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            out.push(entry.path());
            out.extend(tree_of(&entry.path()));
        }
    }
    out.sort();
    out
}

#[test]
fn learn_dry_run_writes_nothing_then_learn_writes_a_valid_skill_once() {
    let env = Env::new();
    record_sessions(&env, 4);
    let root = env.cwd.path().join("learned");
    std::fs::create_dir_all(&root).unwrap();
    let root_arg = root.to_str().unwrap();
    let learn = |extra: &[&str]| {
        env.ok(&[
            &[
                "learn",
                "--into",
                root_arg,
                "--root",
                root_arg,
                "--no-bundled",
            ][..],
            extra,
        ]
        .concat())
    };
    let preview = learn(&["--dry-run"]);
    let target = root.join("search-download-rag/SKILL.md");
    assert!(
        preview.contains(&format!("would write {}", target.display())),
        "{preview}"
    );
    assert!(preview.contains("--- search-download-rag ---\n---\nname: search-download-rag\n"));
    assert!(tree_of(&root).is_empty(), "a dry run writes nothing");

    let wrote = learn(&[]);
    assert!(
        wrote.contains(&format!("wrote {}", target.display())),
        "{wrote}"
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(
        text.contains("version: \"0.1.0\"\npinned: false\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "1. Call `search_papers`.\n2. Call `download_paper`.\n3. Call `rag_search`.\n"
        )
    );
    let validated = env.plain(&["validate", target.parent().unwrap().to_str().unwrap()]);
    assert!(validated.status.success(), "{validated:?}");
    let before = std::fs::read(&target).unwrap();
    let again = learn(&[]);
    assert!(again.contains("skip search-download-rag"), "{again}");
    assert_eq!(std::fs::read(&target).unwrap(), before, "never overwritten");
    assert_eq!(tree_of(&root).len(), 2, "{:?}", tree_of(&root));
}

#[test]
fn learn_reads_tool_call_events_from_session_logs() {
    let env = Env::new();
    let logs: Vec<PathBuf> = (0..3)
        .map(|i| {
            let path = env.cwd.path().join(format!("session-{i}.jsonl"));
            let mut text = String::from("{\"type\":\"user\",\"text\":\"hi\"}\n");
            for tool in ["Read", "Edit", "Bash"] {
                text.push_str(&format!("{{\"type\":\"tool-call\",\"tool\":\"{tool}\"}}\n"));
            }
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let into = env.cwd.path().join("out");
    let mut args = vec![
        "learn",
        "--dry-run",
        "--json",
        "--no-bundled",
        "--into",
        into.to_str().unwrap(),
    ];
    for log in &logs {
        args.extend(["--log", log.to_str().unwrap()]);
    }
    let plan = env.json(&args);
    assert_eq!(plan["sessions"], 3);
    assert_eq!(plan["skills"][0]["name"], "read-edit-bash");
    assert_eq!(
        plan["skills"][0]["tools"],
        serde_json::json!(["Read", "Edit", "Bash"])
    );
    assert_eq!(plan["skills"][0]["written"], false);
    assert!(!into.exists());
    let out = env.run(&["learn", "--into", "x", "--min-confidence", "1.5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--min-confidence"));
}

#[test]
fn invoke_records_and_usage_lists_count_last_use_and_score() {
    let env = Env::new();
    env.skill("greet", "description: Greets someone");
    env.skill(
        "deploy",
        "description: Deploys\ndisable-model-invocation: true",
    );
    env.skill("unused", "description: Never called");
    for _ in 0..2 {
        assert!(
            env.ok(&["invoke", "greet", "Ann", "--as", "model"])
                .trim()
                .ends_with("\n\nBody of greet: Ann")
        );
    }
    let refused = env.run(&["invoke", "deploy", "--as", "model"]);
    assert!(!refused.status.success());
    let listing = env.json(&["usage", "--json", "--no-bundled"]);
    let skills = listing["skills"].as_array().unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greet", "deploy", "unused"], "by score, then name");
    assert_eq!(skills[0]["count"], 2);
    let score = skills[0]["score"].as_f64().unwrap();
    assert!((score - 3f64.ln()).abs() < 1e-4, "{score}");
    assert!(skills[0]["last_used"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        (
            skills[1]["count"].clone(),
            skills[1]["unsuccessful"].clone()
        ),
        (0.into(), 1.into())
    );
    assert_eq!(skills[2]["last_used"], serde_json::Value::Null);
    let text = env.ok(&["usage", "--no-bundled"]);
    let first = text.lines().nth(1).unwrap();
    assert!(
        first.starts_with("greet") && first.contains(" 2 ") && first.ends_with("1.099"),
        "{text}"
    );
}

#[test]
fn inject_lists_the_most_used_skills_first_once_there_is_a_store() {
    let env = Env::new();
    for name in ["alpha", "beta", "gamma"] {
        env.skill(name, &format!("description: The {name} skill"));
    }
    let session = env.cwd.path().join("s.jsonl");
    let session_arg = session.to_str().unwrap();
    let content = |n: usize| -> String {
        let log = std::fs::read_to_string(&session).unwrap();
        let event: serde_json::Value = serde_json::from_str(log.lines().nth(n).unwrap()).unwrap();
        event["content"].as_str().unwrap().to_string()
    };
    assert_eq!(
        env.ok(&["inject", "--session", session_arg, "--no-bundled"])
            .trim(),
        "published"
    );
    assert!(content(0).contains("- alpha: The alpha skill\n- beta: The beta skill\n- gamma"));
    for _ in 0..3 {
        env.ok(&["invoke", "gamma", "--as", "user"]);
    }
    env.ok(&["invoke", "beta", "--as", "user"]);
    assert_eq!(
        env.ok(&["inject", "--session", session_arg, "--no-bundled"])
            .trim(),
        "published"
    );
    assert!(
        content(1).contains("- gamma: The gamma skill\n- beta: The beta skill\n- alpha"),
        "{}",
        content(1)
    );
    assert_eq!(
        env.ok(&["inject", "--session", session_arg, "--no-bundled"])
            .trim(),
        "unchanged"
    );
}

#[test]
fn curate_reports_states_archives_restores_and_pauses() {
    let env = Env::new();
    env.skill("old", "description: Forgotten");
    env.skill("kept", "description: Pinned\npinned: true");
    env.skill("fresh", "description: New");
    // First seen 100 days ago (the store on a clock set back).
    {
        let clock = Arc::new(ManualClock::new(SystemTime::now() - days(100.0)));
        let store = UsageStore::open_with_clock(&env.db(), clock).unwrap();
        store.observe_skills(["old", "kept"]).unwrap();
    }
    let report = env.json(&["curate", "--json", "--no-bundled"]);
    let state = |report: &serde_json::Value, name: &str| -> String {
        let skills = report["skills"].as_array().unwrap();
        let skill = skills.iter().find(|s| s["name"] == name).unwrap();
        skill["state"].as_str().unwrap().to_string()
    };
    assert_eq!(state(&report, "old"), "deprecated");
    assert_eq!(state(&report, "kept"), "active");
    assert_eq!(state(&report, "fresh"), "active");
    assert_eq!(report["candidates"][0]["name"], "old");
    assert_eq!(report["candidates"].as_array().unwrap().len(), 1);
    assert_eq!(report["runner"]["paused"], false);

    let skills = env.cwd.path().join(".claude/skills");
    let archived = env.ok(&["curate", "--archive", "--yes", "--no-bundled"]);
    assert!(archived.contains("archived old:"), "{archived}");
    assert!(skills.join(".archive/old/SKILL.md").is_file());
    assert!(!skills.join("old").exists() && skills.join("kept").exists());
    let catalog = stdout(&env.plain(&["catalog", "--no-bundled"]));
    assert!(!catalog.contains("old"), "{catalog}");

    let restored = env.json(&["curate", "--json", "--restore", "old", "--no-bundled"]);
    assert_eq!(restored["restored"][0]["name"], "old");
    assert_eq!(state(&restored, "old"), "active", "a new grace period");
    assert!(skills.join("old/SKILL.md").is_file());
    let missing = env.run(&["curate", "--restore", "nothing", "--no-bundled"]);
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no archived skill named \"nothing\"")
    );

    assert_eq!(
        env.json(&["curate", "--json", "--pause", "--no-bundled"])["runner"]["paused"],
        true
    );
    let text = env.ok(&["curate", "--no-bundled"]);
    assert!(text.contains("runner: paused"), "{text}");
    assert_eq!(
        env.json(&["curate", "--json", "--resume", "--no-bundled"])["runner"]["paused"],
        false
    );
}

#[test]
fn a_damaged_store_is_named_and_invoke_still_works() {
    let env = Env::new();
    env.skill("greet", "description: Greets");
    std::fs::write(env.db(), b"this is not a database, it is a note").unwrap();
    let db = env.db().display().to_string();
    for args in [
        &["usage", "--no-bundled"][..],
        &["record", "--session", "s", "t"][..],
        &["curate"][..],
    ] {
        let out = env.run(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&db) && err.contains("not a skillhost usage store"),
            "{err}"
        );
    }
    let out = env.run(&["invoke", "greet", "Bo", "--as", "user"]);
    assert!(out.status.success());
    assert!(stdout(&out).trim().ends_with("\n\nBody of greet: Bo"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&db));
    assert_eq!(
        std::fs::read(env.db()).unwrap(),
        b"this is not a database, it is a note"
    );
}

#[test]
fn watch_runs_the_idle_runner_and_shows_a_learned_skill() {
    let env = Env::new();
    let root = env.cwd.path().join("skills");
    std::fs::create_dir_all(&root).unwrap();
    let root_arg = root.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillhost"))
        .args([
            "watch",
            "--json",
            "--no-bundled",
            "--root",
            root_arg,
            "--state",
            env.state(),
        ])
        .current_dir(env.cwd.path())
        .env("HOME", env.home.path())
        .env(
            "SKILLHOST_CACHE_DIR",
            workspace().join("target/test-compile-cache"),
        )
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let next = |what: &str| -> serde_json::Value {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no catalog line for {what}"));
        serde_json::from_str(&line).unwrap()
    };
    assert_eq!(next("the start")["skills"], serde_json::json!([]));
    // A fresh store was never reviewed and has seen no activity: the
    // runner reviews at once.
    let started = Instant::now();
    let review = loop {
        let found = UsageStore::open_existing(&env.db())
            .ok()
            .flatten()
            .and_then(|store| store.last_review().ok().flatten());
        if let Some(review) = found {
            break review;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no review from the runner"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(review.kind, "runner");
    record_sessions(&env, 3);
    env.ok(&["learn", "--into", root_arg, "--no-bundled"]);
    let catalog = next("the learned skill");
    assert_eq!(catalog["skills"][0]["name"], "search-download-rag");
    assert_eq!(catalog["skills"][0]["frontmatter"]["version"], "0.1.0");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn record_with_json_says_what_it_recorded_and_where() {
    let env = Env::new();
    let out = env.json(&["record", "--session", "s-json", "search", "read", "--json"]);
    assert_eq!(out["session"], "s-json", "{out}");
    assert_eq!(
        out["recorded"],
        serde_json::json!(["search", "read"]),
        "{out}"
    );
    assert_eq!(out["store"], env.db().display().to_string(), "{out}");
}

#[test]
fn curate_archive_asks_first_says_its_evidence_and_one_command_undoes_it() {
    let env = Env::new();
    for i in 0..8 {
        env.skill(&format!("old-{i}"), "description: Forgotten");
    }
    env.skill("used", "description: Used");
    {
        let clock = Arc::new(ManualClock::new(SystemTime::now() - days(100.0)));
        let store = UsageStore::open_with_clock(&env.db(), clock).unwrap();
        store
            .observe_skills(
                (0..8)
                    .map(|i| format!("old-{i}"))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            )
            .unwrap();
    }
    env.ok(&["invoke", "used", "--as", "model"]);
    let skills = env.cwd.path().join(".claude/skills");

    // The evidence of each judgement, one line per skill and per candidate.
    let text = env.ok(&["curate", "--no-bundled"]);
    assert!(text.contains("EVIDENCE"), "{text}");
    let old = text.lines().find(|l| l.starts_with("old-0 ")).unwrap();
    assert!(
        old.contains("deprecated")
            && old.contains("no use recorded by skillhost since it was first seen"),
        "{old}"
    );
    let used = text.lines().find(|l| l.starts_with("used ")).unwrap();
    assert!(used.contains("1 use(s) recorded by skillhost"), "{used}");
    assert!(
        text.contains("candidates to archive (8):\n  old-0 ("),
        "{text}"
    );

    // Without a terminal and without --yes, nothing moves.
    let refused = env.run(&["curate", "--archive", "--no-bundled"]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("nothing was archived: 8 skill(s)") && err.contains("--yes"),
        "{err}"
    );
    assert!((0..8).all(|i| skills.join(format!("old-{i}/SKILL.md")).is_file()));

    let archived = env.json(&["curate", "--archive", "--yes", "--json", "--no-bundled"]);
    assert_eq!(archived["archived"].as_array().unwrap().len(), 8);
    assert!(!skills.join("old-3").exists());

    // One command puts every one back, with a new grace period.
    let undone = env.json(&["curate", "--undo", "--json", "--no-bundled"]);
    assert_eq!(undone["restored"].as_array().unwrap().len(), 8);
    assert!((0..8).all(|i| skills.join(format!("old-{i}/SKILL.md")).is_file()));
    let skills_json = undone["skills"].as_array().unwrap();
    assert!(
        skills_json
            .iter()
            .filter(|s| s["name"].as_str().unwrap().starts_with("old-"))
            .all(|s| s["state"] == "active")
    );
    let again = env.run(&["curate", "--undo", "--no-bundled"]);
    assert!(!again.status.success(), "one archive, undone once");
    assert!(String::from_utf8_lossy(&again.stderr).contains("no archive to undo"));
}

#[test]
fn record_log_counts_what_the_agent_used_on_its_own_once_per_log_and_the_curator_sees_it() {
    let env = Env::new();
    for name in ["pdf", "xlsx", "old", "unused"] {
        env.skill(name, &format!("description: The {name} skill"));
    }
    {
        let clock = Arc::new(ManualClock::new(SystemTime::now() - days(100.0)));
        let store = UsageStore::open_with_clock(&env.db(), clock).unwrap();
        store
            .observe_skills(["pdf", "xlsx", "old", "unused"])
            .unwrap();
    }
    let skills = std::fs::canonicalize(env.cwd.path())
        .unwrap()
        .join(".claude/skills");
    let two_days_ago = skillhost_usage::clock::rfc3339(SystemTime::now() - days(2.0));
    let lines = [
        serde_json::json!({"type": "tool-call", "tool": "Read", "timestamp": two_days_ago,
            "input": {"file_path": skills.join("pdf/SKILL.md")}}),
        serde_json::json!({"type": "tool-call", "tool": "Read",
            "input": {"file_path": skills.join("pdf/SKILL.md")}}),
        serde_json::json!({"type": "tool-call", "tool": "Bash",
            "input": {"command": format!("python {}/scripts/recalc.py out.xlsx", skills.join("xlsx").display())}}),
        serde_json::json!({"type": "tool-call", "tool": "Skill", "input": {"skill": "old"}}),
        serde_json::json!({"type": "tool-call", "tool": "Read", "input": {"file_path": "/etc/hosts"}}),
    ];
    let log = env.cwd.path().join("transcript.jsonl");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&log, text.join("\n") + "\nnot json\n").unwrap();
    let log = log.to_str().unwrap();

    let first = env.json(&["record", "--log", log, "--json", "--no-bundled"]);
    let counted = &first["logs"][0];
    assert_eq!(counted["skills"], serde_json::json!(["pdf", "xlsx", "old"]));
    assert_eq!(counted["already_counted"], false);
    assert_eq!(counted["skipped_lines"].as_array().unwrap().len(), 1);
    let again = env.ok(&["record", "--log", log, "--no-bundled"]);
    assert!(again.contains("counted before; not again"), "{again}");

    let usage = env.json(&["usage", "--json", "--no-bundled"]);
    let count = |name: &str| {
        usage["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .map_or(0, |s| s["count"].as_u64().unwrap())
    };
    assert_eq!(
        (count("pdf"), count("xlsx"), count("old"), count("unused")),
        (1, 1, 1, 0)
    );
    // Used through the agent's own loader, so not deprecated; the unused one is.
    let report = env.json(&["curate", "--json", "--no-bundled"]);
    let state = |name: &str| {
        report["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["state"]
            .clone()
    };
    assert_eq!(state("pdf"), "active");
    assert_eq!(state("old"), "active");
    assert_eq!(state("unused"), "deprecated");
}
