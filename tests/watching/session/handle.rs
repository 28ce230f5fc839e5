//! [`Session`], the one type an agent host holds: the same rules as the
//! functions it joins, reached through one handle, with usage recorded.

use super::*;
use skillhost::Session;
use skillhost::session::Usage;
use skillhost::session::render::Scores;
use skillhost::session::usage::UsageError;
use skillhost_usage::UsageStore;
use std::sync::Arc;

impl Project {
    fn session(&self) -> Session<'_, JsonlLog> {
        let log = JsonlLog::open(&self.session).unwrap();
        Session::new(&self.runtime, self.registry(), &self.cwd, log)
            .unwrap()
            .with_id("s-9")
    }
}

fn first_listed(listing: &skillhost::session::render::Listing) -> String {
    let line = listing.inner.lines().find(|l| l.starts_with("- ")).unwrap();
    line[2..].split(':').next().unwrap().to_string()
}

#[test]
fn a_session_publishes_once_activates_what_its_tools_touch_and_expands_with_its_id() {
    let project = Project::new();
    let mut session = project.session();
    assert_eq!(session.inject().unwrap(), Outcome::Published);
    assert_eq!(session.inject().unwrap(), Outcome::Unchanged);
    assert!(matches!(
        session.invoke("react-helper", &[], Caller::Model),
        Err(Error::NotActive { .. })
    ));

    // A path relative to the session's folder, as an agent's tool gives it.
    write(&project.cwd, "src/ui/Button.tsx", b"export {}");
    let touched = session.touch(&["src/ui/Button.tsx".into()]).unwrap();
    assert_eq!(touched.activated, ["react-helper"]);
    assert!(touched.reminder.unwrap().contains("react-helper"));
    assert_eq!(session.inject().unwrap(), Outcome::Published);

    let Invocation::Inline { text, .. } = session
        .invoke("react-helper", &["fix the button".into()], Caller::Model)
        .unwrap()
    else {
        panic!("react-helper is inline");
    };
    assert!(text.contains("Current task: fix the button"));
    let Invocation::Inline { text, .. } = session.invoke("with-vars", &[], Caller::User).unwrap()
    else {
        panic!("with-vars is inline");
    };
    assert!(text.contains("Session: s-9"), "{text}");
    assert!(session.take_warnings().is_empty());
}

#[test]
fn a_resumed_session_registers_again_the_nested_roots_its_log_discovered() {
    let project = Project::new();
    write(
        &project.cwd,
        "packages/web/.claude/skills/web-deploy/SKILL.md",
        skillhost_tests::skill_md("web-deploy", "Deploys the web package").as_bytes(),
    );
    write(&project.cwd, "packages/web/src/main.ts", b"");
    {
        let mut session = project.session();
        let touched = session.touch(&["packages/web/src/main.ts".into()]).unwrap();
        assert_eq!(touched.discovered.len(), 1);
        assert!(touched.reminder.unwrap().contains("web-deploy"));
    }
    // A restarted host: a fresh registry over the usual roots, the same log.
    let session = project.session();
    assert!(session.registry().snapshot().get("web-deploy").is_some());
}

#[test]
fn a_session_with_a_store_ranks_by_its_scores_and_records_each_invocation() {
    let project = Project::new();
    let state = tempfile::tempdir().unwrap();
    let store = Arc::new(UsageStore::open(&state.path().join("usage.db")).unwrap());
    let mut session = project.session().with_usage(store.clone());
    assert_eq!(
        first_listed(&session.listing()),
        "greet",
        "unranked: by name"
    );

    for _ in 0..2 {
        session.invoke("with-vars", &[], Caller::Model).unwrap();
    }
    assert!(matches!(
        session.invoke("review", &[], Caller::Model).unwrap(),
        Invocation::Fork(_)
    ));
    assert!(session.invoke("no-such-skill", &[], Caller::Model).is_err());

    let usage = store.usage().unwrap();
    assert_eq!(usage["with-vars"].count, 2);
    assert_eq!(usage["review"].count, 1);
    assert!(
        !usage.contains_key("no-such-skill"),
        "nothing to record against"
    );
    assert_eq!(first_listed(&session.listing()), "with-vars");
    // Search ranks as the listing does.
    let page = session.search("", 1);
    let first = page.lines().nth(1).unwrap();
    assert!(first.starts_with("- with-vars:"), "{page}");
    assert!(
        session
            .search("greets", 1)
            .contains("- greet: Greets someone")
    );
    assert!(session.take_warnings().is_empty());
}

/// A store whose disk is gone: every call fails.
struct Unwritable;

impl Usage for Unwritable {
    fn scores(&self, _: &skillhost::Catalog) -> Result<Scores, UsageError> {
        Err("usage.db: disk I/O error".into())
    }

    fn record(
        &self,
        _: &skillhost::Catalog,
        _: &Request<'_>,
        _: &Result<Invocation, Error>,
    ) -> Result<(), UsageError> {
        Err("usage.db: disk I/O error".into())
    }
}

#[test]
fn a_store_that_cannot_be_used_costs_a_warning_never_the_listing_or_the_invocation() {
    let project = Project::new();
    let mut session = project.session().with_usage(Arc::new(Unwritable));
    assert_eq!(session.inject().unwrap(), Outcome::Published);
    assert!(
        session
            .invoke("greet", &["Ada".into()], Caller::Model)
            .is_ok()
    );
    let warnings = session.take_warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("usage scores not used: usage.db"));
    assert!(warnings[1].starts_with("usage not recorded: usage.db"));
    assert!(session.take_warnings().is_empty(), "taken once");
}

#[test]
fn at_600_skills_an_activated_conditional_skill_is_listed_and_the_rest_are_counted() {
    let project = Project::new();
    for i in 0..600 {
        write(
            &project.skills(),
            &format!("aaa-community-{i:03}/SKILL.md"),
            skillhost_tests::skill_md(&format!("aaa-community-{i:03}"), "Does one thing well")
                .as_bytes(),
        );
    }
    let mut session = project.session();
    let before = session.listing();
    assert!(
        !before.names.iter().any(|n| n == "react-helper"),
        "not active yet"
    );
    write(&project.cwd, "src/ui/Button.tsx", b"export {}");
    let touched = session.touch(&["src/ui/Button.tsx".into()]).unwrap();
    assert!(touched.reminder.unwrap().contains("react-helper"));
    let listing = session.listing();
    assert_eq!(
        listing.names.first().map(String::as_str),
        Some("react-helper"),
        "what the agent is working on leads the listing"
    );
    let left = 604 - listing.names.len();
    assert!(left > 0);
    assert!(
        listing.inner.ends_with(&format!(
            "- (and {left} more not listed: {})",
            skillhost::session::render::MORE_DEFAULT
        )),
        "{}",
        &listing.inner[listing.inner.len().saturating_sub(200)..]
    );
    assert!(session.search("thing", 30).contains("page 30 of"));
}
