//! Entries sent ahead of an answer: kept in order, capped, checked on the
//! helper once there are enough, and absorbed as the head of the answer.

use super::*;
use crate::provider::absorb::tests::{entry, grants, observation, rejected};
use crate::provider::absorb::{Held, absorb};
use crate::provider::incoming::Check;

fn sender(caps: Caps, namespace: Option<&str>) -> Sender {
    Sender {
        grants: Arc::new(grants()),
        id: "p".to_string(),
        caps,
        namespace: Namespace(namespace.map(str::to_string)),
        scope: Scope::User,
        location: "/s".to_string(),
    }
}

fn batch(from: usize, count: usize) -> Vec<wit::SkillEntry> {
    (from..from + count)
        .map(|i| entry(&format!("s{i:04}")))
        .collect()
}

fn paths(early: &Early) -> Vec<&str> {
    early.entries.iter().map(|e| e.path.as_str()).collect()
}

#[test]
fn entries_sent_ahead_lead_the_answer_and_the_answers_entry_for_a_document_stands() {
    let receiver = Receiver::new(sender(Caps::default(), None));
    let mut sink = receiver.sink();
    sink(vec![entry("a"), entry("b")]);
    drop(sink);
    let (early, from) = receiver.finish();
    assert_eq!(early.received, 2);
    assert_eq!(
        paths(&early),
        ["/skills/0/a/SKILL.md", "/skills/0/b/SKILL.md"]
    );
    let mut again = entry("b");
    again.json = r#"{"description":"from the answer"}"#.into();
    let absorbed = absorb(
        &mut Held::default(),
        early,
        observation(1, None, vec![again, entry("c")], &[]),
        &from.source(),
    );
    let shown: Vec<(&str, Option<&str>)> = absorbed
        .view
        .skills
        .iter()
        .map(|s| (s.name(), s.description()))
        .collect();
    assert_eq!(
        shown,
        [
            ("a", Some("d")),
            ("b", Some("from the answer")),
            ("c", Some("d"))
        ]
    );
    assert_eq!(absorbed.received, 4);
}

#[test]
fn many_entries_are_checked_on_the_helper_in_the_order_sent() {
    let receiver = Receiver::new(sender(Caps::default(), Some("team")));
    let mut sink = receiver.sink();
    let mut sent = Vec::new();
    for start in [0, 100, 200] {
        let mut part = batch(start, 100);
        part[7].name = "bad/name".to_string();
        sent.extend(part.iter().map(|e| e.path.clone()));
        sink(part);
    }
    drop(sink);
    let (early, from) = receiver.finish();
    assert_eq!(paths(&early), sent);
    let done = early
        .entries
        .iter()
        .filter(|e| matches!(e.check, Check::Done(_)))
        .count();
    if cores() >= 2 {
        assert_eq!(done, 300, "all were checked on the helper");
    } else {
        assert_eq!(done, 0, "one core: all are checked with the answer");
    }
    let absorbed = absorb(
        &mut Held::default(),
        early,
        observation(1, None, Vec::new(), &[]),
        &from.source(),
    );
    assert_eq!(absorbed.view.skills.len(), 297);
    assert!(
        absorbed
            .view
            .skills
            .iter()
            .all(|s| s.name().starts_with("team:s"))
    );
    assert_eq!(rejected(&absorbed), 3, "each refused entry is named");
}

#[test]
fn entries_past_the_cap_on_skills_are_counted_and_dropped_unexamined() {
    let caps = Caps {
        max_skills: 5,
        ..Caps::default()
    };
    let receiver = Receiver::new(sender(caps, None));
    let mut sink = receiver.sink();
    for start in [0, 3, 6] {
        sink(batch(start, 3));
    }
    drop(sink);
    let (early, from) = receiver.finish();
    assert_eq!((early.received, early.dropped), (9, 4));
    assert_eq!(
        paths(&early),
        (0..5)
            .map(|i| format!("/skills/0/s{i:04}/SKILL.md"))
            .collect::<Vec<_>>()
    );
    let absorbed = absorb(
        &mut Held::default(),
        early,
        observation(1, None, batch(9, 1), &[]),
        &from.source(),
    );
    assert_eq!(
        absorbed.view.skills.len(),
        5,
        "the answer's entry is over the cap"
    );
    assert!(
        absorbed.view.diagnostics.iter().any(|d| d
            .message
            .contains("returned more than 5 skills; 5 were dropped")),
        "{:?}",
        absorbed.view.diagnostics
    );
}
