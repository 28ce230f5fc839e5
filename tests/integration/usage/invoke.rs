//! Invocations recorded from what the session layer's `invoke` returned,
//! over a real registry.

use super::store;
use skillhost::session::invoke::{self, Caller, Request};
use skillhost_tests::{runtime, tree};
use skillhost_usage::record::record_invoke;
use std::collections::BTreeSet;

#[test]
fn invocations_are_recorded_under_the_skills_name_and_provider() {
    let skills = tree(&[
        (
            "review/SKILL.md",
            b"---\nname: review\ndescription: Reviews\naliases: [cr]\n---\nReview $ARGUMENTS\n",
        ),
        (
            "secret/SKILL.md",
            b"---\nname: secret\ndescription: Hidden\ndisable-model-invocation: true\n---\nno\n",
        ),
    ]);
    let runtime = runtime();
    let registry = runtime.registry_for_roots(&[skills.path()]).unwrap();
    let state = tempfile::tempdir().unwrap();
    let (store, _clock) = store(state.path());
    let activated = BTreeSet::new();
    let catalog = registry.snapshot();
    for (name, expected) in [("cr", true), ("secret", true), ("missing", false)] {
        let request = Request {
            name,
            args: &[],
            caller: Caller::Model,
            session_id: "s-7",
            max_steps: None,
        };
        let result = invoke::invoke(&registry, &request, &activated);
        assert_eq!(
            record_invoke(&store, &catalog, &request, &result).unwrap(),
            expected,
            "{name}"
        );
    }
    let usage = store.usage().unwrap();
    assert_eq!(usage["review"].count, 1, "the alias counts for the skill");
    assert_eq!(
        (usage["secret"].count, usage["secret"].unsuccessful),
        (0, 1)
    );
    assert!(!usage.contains_key("missing") && !usage.contains_key("cr"));
    let provider = registry.providers()[0].id().to_string();
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    let row: (String, String, String, String) = conn
        .query_row(
            "SELECT source, caller, session, outcome FROM invocations WHERE skill = 'review'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (provider, "model".into(), "s-7".into(), "inline".into())
    );
}
