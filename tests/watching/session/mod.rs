//! Catalog injection and invocation over real provider components and a
//! real JSONL session log: a project's skills listed once, a change
//! republished, conditional skills activated by the files touched, nested
//! skill folders discovered, invocation with arguments and forks, and the
//! injector's rules over compaction and incomplete snapshots.

mod handle;
mod injector;
mod scenarios;

use skillhost::session::activation::{self, activated};
use skillhost::session::inject::{self, Injector, Outcome, digest};
use skillhost::session::invoke::{self, Caller, ForkRunner, Invocation, Request};
use skillhost::session::log::{CATALOG, JsonlLog, SessionLog};
use skillhost::session::render::{CLOSE, OPEN, RenderOptions};
use skillhost::{Error, Registry, Runtime, Sources};
use skillhost_tests::{runtime, write};
use std::path::PathBuf;

const GREET: &str = "---\nname: greet\ndescription: Greets someone\nwhen_to_use: When the user says hello\naliases: [hello, hi]\n---\nHello, $ARGUMENTS! Welcome to ai-coding.\n";
const WITH_VARS: &str = "---\nname: with-vars\ndescription: Shows every variable\n---\nArgs: $ARGUMENTS\nDir: ${CLAUDE_SKILL_DIR}\nSession: ${CLAUDE_SESSION_ID}\n";
const REVIEW: &str = "---\nname: review\ndescription: Reviews a change\ncontext: fork\nallowed-tools: [bash, Read_File, git_diff]\nmodel: claude-sonnet-4-6\neffort: high\nagent: reviewer\n---\nReview $ARGUMENTS carefully.\n";
const SECRET: &str = "---\nname: secret-internal\ndescription: Internal only\nuser-invocable: false\ndisable-model-invocation: true\n---\nsecret\n";
const REACT: &str = "---\nname: react-helper\ndescription: React component helper\nwhen_to_use: When editing React component files\npaths:\n  - src/**/*.{tsx,jsx}\n  - components/**/*.tsx\n---\nYou are helping with a React component file.\nCurrent task: $ARGUMENTS\n";

/// A project with five skills in `.claude/skills`, and a session log.
struct Project {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    session: PathBuf,
    runtime: Runtime,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(dir.path()).unwrap().join("project");
        let skills = cwd.join(".claude/skills");
        for (name, text) in [
            ("greet", GREET),
            ("with-vars", WITH_VARS),
            ("review", REVIEW),
            ("secret-internal", SECRET),
            ("react-helper", REACT),
        ] {
            write(&skills, &format!("{name}/SKILL.md"), text.as_bytes());
        }
        let session = cwd.join("session.jsonl");
        Project {
            _dir: dir,
            cwd,
            session,
            runtime: runtime(),
        }
    }

    fn skills(&self) -> PathBuf {
        self.cwd.join(".claude/skills")
    }

    /// The project's usual roots. The scenarios count exactly what the
    /// project holds; the bundled skills are tested in remote.rs and the
    /// CLI tests.
    fn registry(&self) -> Registry {
        let sources = Sources {
            bundled: false,
            ..Sources::usual(&self.cwd, None)
        };
        self.runtime.registry_for_sources(&sources).unwrap()
    }

    /// A fresh registry and log, as a restarted host would build them.
    fn open(&self) -> (Registry, JsonlLog) {
        let log = JsonlLog::open(&self.session).unwrap();
        let registry = self.registry();
        activation::register_discovered(&self.runtime, &registry, &self.cwd, &log).unwrap();
        (registry, log)
    }

    fn inject(&self) -> Outcome {
        let (registry, mut log) = self.open();
        Injector::default()
            .replace(&registry.snapshot(), &mut log)
            .unwrap()
    }

    fn touch(&self, paths: &[&str]) -> Option<String> {
        let (registry, mut log) = self.open();
        let touched: Vec<PathBuf> = paths.iter().map(|p| self.cwd.join(p)).collect();
        activation::touch(
            &self.runtime,
            &registry,
            &self.cwd,
            &touched,
            &mut log,
            RenderOptions::default(),
        )
        .unwrap()
        .reminder
    }

    fn invoke(&self, name: &str, args: &[&str], caller: Caller) -> Result<Invocation, Error> {
        let (registry, log) = self.open();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let request = Request {
            name,
            args: &args,
            caller,
            session_id: "session-7",
            max_steps: None,
        };
        invoke::invoke(&registry, &request, &activated(&log))
    }

    fn last_catalog(&self) -> skillhost::session::log::Event {
        let log = JsonlLog::open(&self.session).unwrap();
        skillhost::session::log::backward(&log)
            .find(|e| e.kind == CATALOG)
            .cloned()
            .expect("a catalog event")
    }

    fn hide_all_events(&self) {
        // What compaction does: the events stay, the model no longer sees them.
        let text = std::fs::read_to_string(&self.session).unwrap();
        std::fs::write(
            &self.session,
            text.replace("\"visible\":true", "\"visible\":false"),
        )
        .unwrap();
    }
}

fn inline_text(invocation: Invocation) -> String {
    match invocation {
        Invocation::Inline { text, .. } => text,
        other => panic!("expected inline, got {other:?}"),
    }
}
