//! A project's session step by step: publishing, delta mode, activation,
//! precedence, inline and forked invocation, permissions, nested roots.

use super::*;

#[test]
fn scenario_0a_the_first_step_publishes_every_active_model_invocable_skill() {
    let project = Project::new();
    assert_eq!(project.inject(), Outcome::Published);
    let event = project.last_catalog();
    let content = event.content.unwrap();
    assert_eq!(
        content,
        format!(
            "{OPEN}\n- greet: Greets someone - When the user says hello\n- review: Reviews a change\n- with-vars: Shows every variable\n{CLOSE}"
        )
    );
    let inner = content
        .strip_prefix(&format!("{OPEN}\n"))
        .unwrap()
        .strip_suffix(&format!("\n{CLOSE}"))
        .unwrap();
    assert_eq!(event.digest.as_deref(), Some(digest(inner).as_str()));
    assert_eq!(event.source.as_deref(), Some(inject::DEFAULT_SOURCE));
    let raw = std::fs::read_to_string(&project.session).unwrap();
    let line: serde_json::Value = serde_json::from_str(raw.lines().last().unwrap()).unwrap();
    for key in ["type", "visible", "source", "digest", "content"] {
        assert!(line.get(key).is_some(), "the JSONL event has {key}");
    }
}

#[test]
fn scenario_0b_0c_delta_mode_sends_each_skill_once_per_agent_until_a_clear() {
    let project = Project::new();
    let injector = Injector::default();
    let step = |agent: &str| {
        let (registry, mut log) = project.open();
        injector
            .delta(&registry.snapshot(), agent, &mut log)
            .unwrap()
    };
    assert_eq!(step("main"), Outcome::Published);
    assert_eq!(
        step("main"),
        Outcome::Unchanged,
        "0b: nothing new, nothing sent"
    );
    assert_eq!(
        step("helper"),
        Outcome::Published,
        "another agent is told on its own"
    );
    write(
        &project.skills(),
        "late/SKILL.md",
        b"---\ndescription: Added later\n---\nbody\n",
    );
    assert_eq!(step("main"), Outcome::Published);
    let (_, log) = project.open();
    let last = skillhost::session::log::backward(&log).next().unwrap();
    assert_eq!(last.items, ["late"], "only the new skill");
    let (_, mut log) = project.open();
    inject::clear(&mut log, Some("main")).unwrap();
    assert_eq!(
        step("main"),
        Outcome::Published,
        "0c: after a clear, everything again"
    );
    let (_, log) = project.open();
    let last = skillhost::session::log::backward(&log).next().unwrap();
    assert_eq!(last.items, ["greet", "late", "review", "with-vars"]);
    assert_eq!(
        step("helper"),
        Outcome::Published,
        "the helper learns only of the late skill"
    );
}

#[test]
fn scenario_0d_4b_touching_a_matching_file_activates_and_returns_the_reminder() {
    let project = Project::new();
    let reminder = project
        .touch(&["src/components/Button.tsx"])
        .expect("a reminder");
    assert_eq!(
        reminder,
        "<system-reminder>\nThe following skills are now available for use with the Skill tool:\n\
         - react-helper: React component helper - When editing React component files\n</system-reminder>"
    );
    // The next step's catalog includes it.
    assert_eq!(project.inject(), Outcome::Published);
    assert!(
        project
            .last_catalog()
            .content
            .unwrap()
            .contains("- react-helper:")
    );
}

#[test]
fn scenario_1_conditional_skills_are_loaded_but_hidden_and_a_broken_skill_does_not_block() {
    let project = Project::new();
    write(
        &project.skills(),
        "broken/SKILL.md",
        b"---\nname: broken\ndescription: never closed\n",
    );
    let (registry, log) = project.open();
    let catalog = registry.snapshot();
    assert_eq!(catalog.skills.len(), 5);
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.path.ends_with("broken/SKILL.md"))
    );
    let visible = inject::visible_to_model(&catalog, &activated(&log));
    let names: Vec<&str> = visible.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["greet", "review", "with-vars"]);
}

#[test]
fn scenario_1b_a_project_skill_overrides_the_users() {
    let project = Project::new();
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".claude/skills"),
        "greet/SKILL.md",
        b"---\nname: greet\ndescription: User version\n---\nHi from the user version\n",
    );
    let registry = project
        .runtime
        .registry_for_default_roots(&project.cwd, Some(home.path()))
        .unwrap();
    let args = vec!["Ann".to_string()];
    let request = Request {
        name: "greet",
        args: &args,
        caller: Caller::User,
        session_id: "",
        max_steps: None,
    };
    let text = inline_text(invoke::invoke(&registry, &request, &Default::default()).unwrap());
    assert_eq!(text, "Hello, Ann! Welcome to ai-coding.\n");
    assert!(
        registry
            .snapshot()
            .diagnostics
            .iter()
            .any(|d| d.message.contains("shadowed")
                && d.message.contains("ask for it as user:greet"))
    );
    // The shadowed skill stays reachable by its scope, from its own provider.
    let request = Request {
        name: "user:greet",
        ..request
    };
    let text = inline_text(invoke::invoke(&registry, &request, &Default::default()).unwrap());
    assert!(text.starts_with("Hi from the user version"), "{text}");
    assert_eq!(
        registry.load("user:greet").unwrap().skill.description(),
        Some("User version")
    );
    assert_eq!(
        registry.load("project:greet").unwrap().skill.description(),
        Some("Greets someone")
    );
    assert_eq!(
        registry
            .snapshot()
            .skills
            .iter()
            .filter(|s| s.name() == "greet")
            .count(),
        1
    );
}

#[test]
fn scenario_2_inline_invocation_expands_aliases_and_variables() {
    let project = Project::new();
    let hello = |name| inline_text(project.invoke(name, &["Alice"], Caller::User).unwrap());
    assert_eq!(hello("greet"), "Hello, Alice! Welcome to ai-coding.\n");
    assert_eq!(
        hello("hello"),
        hello("greet"),
        "2b: an alias resolves to the main name"
    );
    assert_eq!(hello("hi"), hello("greet"));
    let vars = inline_text(
        project
            .invoke("with-vars", &["test-arg-123"], Caller::User)
            .unwrap(),
    );
    let dir = project.skills().join("with-vars");
    assert_eq!(
        vars,
        format!(
            "Args: test-arg-123\nDir: {}\nSession: session-7\n",
            dir.display()
        )
    );
    assert!(
        !vars.contains("${") && !vars.contains("$ARGUMENTS"),
        "2c: no placeholder survives"
    );
    let bare = inline_text(project.invoke("greet", &[], Caller::User).unwrap());
    assert_eq!(
        bare, "Hello, ! Welcome to ai-coding.\n",
        "2d: no arguments, no error"
    );
}

/// A runner that records what it was given, as an embedder's would.
#[derive(Default)]
struct RecordingRunner {
    runs: Vec<(invoke::ForkPlan, Vec<String>)>,
}

impl ForkRunner for RecordingRunner {
    fn run(&mut self, plan: &invoke::ForkPlan, tools: &[String]) -> Result<String, String> {
        self.runs.push((plan.clone(), tools.to_vec()));
        Ok(format!("reviewed with {} tools", tools.len()))
    }
}

#[test]
fn scenario_3_fork_invocation_gives_a_plan_run_with_only_the_allowed_tools() {
    let project = Project::new();
    let Invocation::Fork(plan) = project
        .invoke("review", &["HEAD~1..HEAD"], Caller::User)
        .unwrap()
    else {
        panic!("review is a fork skill");
    };
    assert_eq!(plan.prompt, "Review HEAD~1..HEAD carefully.\n");
    assert_eq!(plan.allowed_tools, ["bash", "Read_File", "git_diff"]);
    assert_eq!(plan.model.as_deref(), Some("claude-sonnet-4-6"));
    assert_eq!(plan.effort.as_deref(), Some("high"));
    assert_eq!(plan.agent.as_deref(), Some("reviewer"));
    assert!(plan.max_steps <= invoke::MAX_FORK_STEPS);
    let available: Vec<String> = ["Bash", "read_file", "GIT_DIFF", "write_file", "web_search"]
        .iter()
        .map(|t| t.to_string())
        .collect();
    let mut runner = RecordingRunner::default();
    let answer = invoke::run_fork(&plan, &available, &mut runner).unwrap();
    assert_eq!(answer, "reviewed with 3 tools");
    assert_eq!(
        runner.runs[0].1,
        ["Bash", "read_file", "GIT_DIFF"],
        "case-insensitive, nothing else"
    );
    // 3b: the model may invoke it too.
    assert!(matches!(
        project.invoke("review", &[], Caller::Model),
        Ok(Invocation::Fork(_))
    ));
    let capped = Request {
        name: "review",
        args: &[],
        caller: Caller::Model,
        session_id: "",
        max_steps: Some(50),
    };
    let (registry, log) = project.open();
    let Ok(Invocation::Fork(plan)) = invoke::invoke(&registry, &capped, &activated(&log)) else {
        panic!("a fork plan");
    };
    assert_eq!(plan.max_steps, invoke::MAX_FORK_STEPS);
}

#[test]
fn scenario_4_a_conditional_skill_activates_once_for_matching_files_and_survives_a_restart() {
    let project = Project::new();
    // 4a: not yet active, for anyone; the error says what activates it.
    match project.invoke("react-helper", &["add a button"], Caller::User) {
        Err(e @ Error::NotActive { .. }) => assert_eq!(
            e.to_string(),
            "skill \"react-helper\" is not active yet: it becomes available once a file \
             matching src/**/*.tsx or src/**/*.jsx or components/**/*.tsx is touched"
        ),
        other => panic!("expected not active, got {other:?}"),
    }
    // 4e: a file that matches nothing activates nothing.
    assert_eq!(project.touch(&["internal/skill/registry.go"]), None);
    // 4c: writing a new .tsx activates it.
    assert!(project.touch(&["src/components/Icon.tsx"]).is_some());
    // 4f: once.
    assert_eq!(project.touch(&["src/components/Modal.tsx"]), None);
    // 4d: invocable now, after a restart (a fresh registry and log).
    let text = inline_text(
        project
            .invoke("react-helper", &["add a delete button"], Caller::User)
            .unwrap(),
    );
    assert!(text.contains("You are helping with a React component file."));
    assert!(text.contains("Current task: add a delete button"));
    // A clear resets activations.
    let (_, mut log) = project.open();
    inject::clear(&mut log, None).unwrap();
    assert!(project.invoke("react-helper", &[], Caller::User).is_err());
}

#[test]
fn scenario_4_files_outside_the_working_folder_activate_nothing() {
    let project = Project::new();
    let outside = project.cwd.parent().unwrap().join("elsewhere/src/App.tsx");
    let (registry, mut log) = project.open();
    let activation = activation::touch(
        &project.runtime,
        &registry,
        &project.cwd,
        &[outside],
        &mut log,
        RenderOptions::default(),
    )
    .unwrap();
    assert!(activation.activated.is_empty());
}

#[test]
fn scenario_5_permissions_refuse_the_user_and_the_model_and_hide_the_skill() {
    let project = Project::new();
    for caller in [Caller::User, Caller::Model] {
        match project.invoke("secret-internal", &["test"], caller) {
            Err(Error::Refused { skill, reason }) => {
                assert_eq!(skill, "secret-internal");
                assert!(
                    reason.contains("invocable") || reason.contains("invoke"),
                    "{reason}"
                );
            }
            other => panic!("expected a refusal for {caller:?}, got {other:?}"),
        }
    }
    project.inject();
    assert!(
        !project
            .last_catalog()
            .content
            .unwrap()
            .contains("secret-internal")
    );
    // An unknown name names at most the near ones this caller may use,
    // and how many there are; never the whole catalog.
    match project.invoke("nope", &[], Caller::Model) {
        Err(Error::UnknownSkill { near, count, .. }) => {
            assert!(near.is_empty(), "{near:?}");
            assert_eq!(count, 3, "greet, review, with-vars");
        }
        other => panic!("{other:?}"),
    }
    match project.invoke("reveiw", &[], Caller::Model) {
        Err(Error::UnknownSkill { near, .. }) => assert_eq!(near, ["review"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_nested_skill_folder_below_a_touched_file_becomes_a_root() {
    let project = Project::new();
    let nested = project.cwd.join("packages/web/.agents/skills");
    write(
        &nested,
        "webby/SKILL.md",
        b"---\ndescription: Web package helper\n---\nbody\n",
    );
    let reminder = project
        .touch(&["packages/web/src/index.ts"])
        .expect("a reminder");
    assert!(
        reminder.contains("- webby: Web package helper"),
        "{reminder}"
    );
    // Recorded: a restarted host includes it.
    assert_eq!(project.inject(), Outcome::Published);
    assert!(project.last_catalog().content.unwrap().contains("- webby:"));
    assert_eq!(
        project.touch(&["packages/web/src/other.ts"]),
        None,
        "registered once"
    );
}

#[test]
fn a_nested_project_root_outranks_the_users_root_now_and_after_a_restart() {
    let project = Project::new();
    let user = project.cwd.parent().unwrap().join("home-skills");
    write(
        &user,
        "webby/SKILL.md",
        b"---\ndescription: The user's webby\n---\nuser\n",
    );
    write(
        &project.cwd.join("packages/web/.agents/skills"),
        "webby/SKILL.md",
        b"---\ndescription: The package's webby\n---\npackage\n",
    );
    let sources = Sources {
        roots: vec![
            (project.skills(), skillhost::Scope::Project),
            (user, skillhost::Scope::User),
        ],
        remotes: Vec::new(),
        bundled: true,
    };
    let registry = project.runtime.registry_for_sources(&sources).unwrap();
    let mut log = JsonlLog::open(&project.session).unwrap();
    let touched = [project.cwd.join("packages/web/src/index.ts")];
    activation::touch(
        &project.runtime,
        &registry,
        &project.cwd,
        &touched,
        &mut log,
        RenderOptions::default(),
    )
    .unwrap();
    let scopes: Vec<_> = registry.providers().iter().map(|p| p.scope()).collect();
    assert_eq!(
        scopes,
        [
            skillhost::Scope::Project,
            skillhost::Scope::Project,
            skillhost::Scope::User,
            skillhost::Scope::Bundled
        ]
    );
    let description = |registry: &Registry| {
        registry
            .snapshot()
            .get("webby")
            .and_then(|s| s.description().map(str::to_string))
    };
    assert_eq!(
        description(&registry).as_deref(),
        Some("The package's webby")
    );
    let restarted = project.runtime.registry_for_sources(&sources).unwrap();
    activation::register_discovered(&project.runtime, &restarted, &project.cwd, &log).unwrap();
    assert_eq!(
        description(&restarted).as_deref(),
        Some("The package's webby")
    );
}
