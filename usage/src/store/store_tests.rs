//! The store on its own: schema, records, queries, runner state.

use super::*;
use crate::clock::{ManualClock, days};
use std::time::UNIX_EPOCH;

fn store_at(dir: &Path, clock: Arc<ManualClock>) -> UsageStore {
    UsageStore::open_with_clock(&dir.join("state/usage.db"), clock).unwrap()
}

fn invocation<'a>(skill: &'a str, outcome: Outcome) -> InvocationRecord<'a> {
    InvocationRecord {
        skill,
        source: "local:/skills",
        caller: "model",
        session: "s-1",
        outcome,
    }
}

#[test]
fn a_new_store_is_marked_as_ours_in_wal_mode_at_the_current_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = UsageStore::open(&dir.path().join("a/b/usage.db")).unwrap();
    let conn = store.lock();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(app, APPLICATION_ID);
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn usage_counts_uses_apart_from_refusals_and_keeps_first_seen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(1000.0)));
    let store = store_at(dir.path(), clock.clone());
    store.observe_skills(["review", "idle"]).unwrap();
    clock.advance(days(1.0));
    store
        .record_invocation(&invocation("review", Outcome::Inline))
        .unwrap();
    clock.advance(days(1.0));
    store
        .record_invocation(&invocation("review", Outcome::Fork))
        .unwrap();
    store
        .record_invocation(&invocation("review", Outcome::Refused))
        .unwrap();
    store
        .record_invocation(&invocation("fresh", Outcome::Failed))
        .unwrap();
    let usage = store.usage().unwrap();
    let review = &usage["review"];
    assert_eq!(review.count, 2);
    assert_eq!(review.unsuccessful, 1);
    assert_eq!(review.last_used, Some(UNIX_EPOCH + days(1002.0)));
    assert_eq!(review.first_seen, Some(UNIX_EPOCH + days(1000.0)));
    assert_eq!(usage["idle"].count, 0);
    assert_eq!(usage["idle"].first_seen, Some(UNIX_EPOCH + days(1000.0)));
    assert_eq!(usage["fresh"].last_used, None);
    assert_eq!(usage["fresh"].first_seen, Some(UNIX_EPOCH + days(1002.0)));
    assert_eq!(store.invocation_count().unwrap(), 4);
}

#[test]
fn tool_calls_come_back_per_session_in_recorded_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_at(dir.path(), Arc::new(ManualClock::new(UNIX_EPOCH)));
    store.record_tool_calls("b", &["read", "edit"]).unwrap();
    store.record_tool_call("a", "search").unwrap();
    store.record_tool_call("b", "test").unwrap();
    assert_eq!(
        store.sessions().unwrap(),
        [
            ("a".to_string(), vec!["search".to_string()]),
            (
                "b".to_string(),
                vec!["read".to_string(), "edit".to_string(), "test".to_string()]
            ),
        ]
    );
    assert_eq!(store.tool_call_count().unwrap(), 4);
}

#[test]
fn hostile_text_is_refused_before_it_reaches_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_at(dir.path(), Arc::new(ManualClock::new(UNIX_EPOCH)));
    let long = "x".repeat(MAX_FIELD_CHARS + 1);
    for (session, tool) in [("s", ""), ("", "t"), ("s", "a\nb"), ("s", long.as_str())] {
        assert!(matches!(
            store.record_tool_call(session, tool),
            Err(Error::Invalid { .. })
        ));
    }
    assert!(
        store
            .record_invocation(&invocation("", Outcome::Inline))
            .is_err()
    );
    assert_eq!(store.tool_call_count().unwrap(), 0);
}

#[test]
fn runner_state_follows_heartbeats_pauses_and_reviews() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(10.0)));
    let store = store_at(dir.path(), clock.clone());
    let state = store.runner_state().unwrap();
    assert_eq!(
        state,
        RunnerState {
            paused: false,
            last_activity: None,
            last_review: None
        }
    );
    store.heartbeat("serve").unwrap();
    clock.advance(days(1.0));
    store.heartbeat("cli").unwrap();
    store.set_paused(true).unwrap();
    let report = serde_json::json!({"skills": []});
    assert!(
        store
            .record_review("runner", &report, Some(days(7.0)))
            .unwrap()
    );
    clock.advance(days(1.0));
    assert!(
        !store
            .record_review("runner", &report, Some(days(7.0)))
            .unwrap(),
        "too soon after the last one"
    );
    let state = store.runner_state().unwrap();
    assert!(state.paused);
    assert_eq!(state.last_activity, Some(UNIX_EPOCH + days(11.0)));
    assert_eq!(state.last_review, Some(UNIX_EPOCH + days(11.0)));
    let last = store.last_review().unwrap().unwrap();
    assert_eq!((last.kind.as_str(), last.report), ("runner", report));
    store.set_paused(false).unwrap();
    assert!(!store.runner_state().unwrap().paused);
}

#[test]
fn a_restore_restarts_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(1.0)));
    let store = store_at(dir.path(), clock.clone());
    store.observe_skills(["old"]).unwrap();
    clock.advance(days(100.0));
    store.observe_skills(["old"]).unwrap();
    assert_eq!(
        store.usage().unwrap()["old"].first_seen,
        Some(UNIX_EPOCH + days(1.0))
    );
    store.restart_grace("old").unwrap();
    assert_eq!(
        store.usage().unwrap()["old"].first_seen,
        Some(UNIX_EPOCH + days(101.0))
    );
}

#[test]
fn a_fifo_or_a_device_where_the_store_should_be_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("usage.db");
    skillhost::paths::mkfifo(&fifo);
    for path in [fifo.as_path(), Path::new("/dev/zero")] {
        let refused = UsageStore::open(path).err().unwrap().to_string();
        assert!(
            refused.contains(&path.display().to_string()) && refused.contains("not a regular file"),
            "{refused}"
        );
    }
}
