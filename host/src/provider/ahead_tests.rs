//! Entries sent ahead of an answer: kept in order, capped, checked on the
//! workers once there are enough, and absorbed as the head of the answer.

use super::*;
use crate::model::Scope;
use crate::provider::absorb::Held;
use crate::provider::absorb::tests::{absorb_all, entry, observation, rejected};
use crate::provider::boundary::Caps;
use crate::provider::incoming::Check;
use crate::provider::namespace::Namespace;
use crate::sandbox::Speedups;

fn sender(caps: Caps, namespace: Option<&str>) -> Sender {
    let namespace = Namespace(namespace.map(str::to_string));
    crate::provider::absorb::tests::sender(caps, namespace, Scope::User)
}

fn batch(from: usize, count: usize) -> Vec<wit::SkillEntry> {
    (from..from + count)
        .map(|i| entry(&format!("s{i:04}")))
        .collect()
}

fn paths(early: &Entries) -> Vec<&str> {
    early
        .parts
        .iter()
        .flatten()
        .map(|e| e.path.as_str())
        .collect()
}

/// How many of the entries were checked already when the call ended.
fn checked_ahead(early: &Entries) -> usize {
    early
        .parts
        .iter()
        .flatten()
        .filter(|e| matches!(e.check, Check::Done(_)))
        .count()
}

#[test]
fn entries_sent_ahead_lead_the_answer_and_the_answers_entry_for_a_document_stands() {
    let receiver = Receiver::new(sender(Caps::default(), None), &Workers::new(2));
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
    let absorbed = absorb_all(
        &mut Held::default(),
        early,
        observation(1, None, vec![again, entry("c")], &[]),
        &from,
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
fn many_entries_are_checked_ahead_on_the_workers_in_the_order_sent() {
    let receiver = Receiver::new(sender(Caps::default(), Some("team")), &Workers::new(2));
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
    let done = checked_ahead(&early);
    if cores() >= 2 {
        assert_eq!(done, 300, "all were checked ahead");
    } else {
        assert_eq!(done, 0, "one core: all are checked with the answer");
    }
    let absorbed = absorb_all(
        &mut Held::default(),
        early,
        observation(1, None, Vec::new(), &[]),
        &from,
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
    let receiver = Receiver::new(sender(caps, None), &Workers::new(2));
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
    let absorbed = absorb_all(
        &mut Held::default(),
        early,
        observation(1, None, batch(9, 1), &[]),
        &from,
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

#[test]
fn with_checks_ahead_off_every_entry_is_checked_with_the_answer_and_kept_the_same() {
    let shown = |workers: &Workers| {
        let receiver = Receiver::new(sender(Caps::default(), None), workers);
        let mut sink = receiver.sink();
        for start in [0, 100, 200] {
            let mut part = batch(start, 100);
            part[3].path = format!("/elsewhere/{start}/SKILL.md");
            sink(part);
        }
        drop(sink);
        let (early, from) = receiver.finish();
        let done = checked_ahead(&early);
        let absorbed = absorb_all(
            &mut Held::default(),
            early,
            observation(1, None, Vec::new(), &[]),
            &from,
        );
        let names: Vec<String> = absorbed
            .view
            .skills
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        (done, names, rejected(&absorbed))
    };
    let on = Workers::new(2);
    let off = Workers::new(2);
    off.set_speedups(Speedups {
        checks_ahead: false,
        ..Speedups::ALL
    });
    let (done_on, names_on, rejected_on) = shown(&on);
    let (done_off, names_off, rejected_off) = shown(&off);
    assert_eq!(done_off, 0, "nothing is checked ahead");
    if cores() >= 2 {
        assert_eq!(done_on, 300);
    }
    assert_eq!((names_on.len(), rejected_on), (297, 3));
    assert_eq!((names_off, rejected_off), (names_on, rejected_on));
    assert_eq!(off.threads(), 0, "the pool was not used");
}
