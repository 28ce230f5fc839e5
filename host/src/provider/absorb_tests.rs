//! Deltas absorbed against what the host holds.

use super::*;
use crate::model::Scope;
use crate::provider::boundary::Caps;
use crate::provider::incoming::{PARALLEL_FROM, Sender};
use crate::provider::namespace::Namespace;
use crate::sandbox::{GrantedRoot, Grants, Mount, Workers};

pub(in crate::provider) fn grants() -> Grants {
    Grants {
        roots: vec![GrantedRoot {
            guest: "/skills/0".into(),
            host: "/s".into(),
            present: true,
        }],
        mounts: vec![Mount {
            guest: "/skills/0".into(),
            host: "/s".into(),
        }],
        ..Grants::default()
    }
}

pub(in crate::provider) fn entry(name: &str) -> wit::SkillEntry {
    with_fields(name, r#""description":"d""#)
}

/// A 0.3.0 entry whose frontmatter JSON holds `fields` (`"k":v` pairs).
pub(in crate::provider) fn with_fields(name: &str, fields: &str) -> wit::SkillEntry {
    wit::SkillEntry {
        name: name.to_string(),
        raw: String::new(),
        json: format!("{{{fields}}}"),
        path: format!("/skills/0/{name}/SKILL.md"),
        base: format!("/skills/0/{name}"),
        given: None,
    }
}

pub(in crate::provider) fn observation(
    epoch: u64,
    base: Option<u64>,
    skills: Vec<wit::SkillEntry>,
    removed: &[&str],
) -> wit::Observation {
    wit::Observation {
        epoch,
        base,
        skills,
        removed: removed.iter().map(|s| s.to_string()).collect(),
        diagnostics: Vec::new(),
        complete: true,
    }
}

/// How many entries the view names as refused at the boundary.
pub(in crate::provider) fn rejected(absorbed: &Absorbed) -> usize {
    absorbed
        .view
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("skill entry rejected"))
        .count()
}

fn names(absorbed: &Absorbed) -> Vec<&str> {
    absorbed.view.skills.iter().map(|s| s.name()).collect()
}

fn absorb_into(held: &mut Held, obs: wit::Observation) -> Absorbed {
    absorb_with(held, obs, Caps::default())
}

fn absorb_with(held: &mut Held, obs: wit::Observation, caps: Caps) -> Absorbed {
    let from = Arc::new(sender(caps, Namespace::default(), Scope::User));
    absorb_all(held, Entries::default(), obs, &from)
}

/// Who the entries in these tests are from.
pub(in crate::provider) fn sender(caps: Caps, namespace: Namespace, scope: Scope) -> Sender {
    Sender {
        grants: Arc::new(grants()),
        id: "p".to_string(),
        caps,
        namespace,
        scope,
        location: "/s".to_string(),
    }
}

/// `entries` followed by `obs`'s own, checked as a provider's are (a long
/// answer on a worker of a pool of two), then absorbed into `held`.
pub(in crate::provider) fn absorb_all(
    held: &mut Held,
    entries: Entries,
    mut obs: wit::Observation,
    from: &Arc<Sender>,
) -> Absorbed {
    let entries = entries.and_answered(&mut obs, from, &Workers::new(2));
    absorb(held, entries, obs, &from.source())
}

#[test]
fn a_delta_on_the_held_epoch_adds_changes_and_removals() {
    let mut held = Held::default();
    let first = absorb_into(
        &mut held,
        observation(1, None, vec![entry("a"), entry("b")], &[]),
    );
    assert_eq!(names(&first), ["a", "b"]);
    assert_eq!(held.epoch(), Some(1));
    let delta = absorb_into(
        &mut held,
        observation(2, Some(1), vec![entry("c")], &["/skills/0/a/SKILL.md"]),
    );
    assert_eq!(names(&delta), ["b", "c"]);
    assert_eq!(delta.received, 1);
}

#[test]
fn a_delta_on_another_epoch_is_refused_and_everything_is_asked_again() {
    let mut held = Held::default();
    absorb_into(&mut held, observation(1, None, vec![entry("a")], &[]));
    let wrong = absorb_into(&mut held, observation(3, Some(2), vec![], &[]));
    assert!(!wrong.view.complete);
    assert!(
        wrong.view.diagnostics[0]
            .message
            .contains("asking for everything again")
    );
    assert_eq!(held.epoch(), None, "the next request asks for everything");
}

#[test]
fn a_rejected_entry_is_a_diagnostic_until_it_is_fixed() {
    let mut held = Held::default();
    let mut bad = entry("x");
    bad.path = "/etc/passwd".into();
    let first = absorb_into(&mut held, observation(1, None, vec![bad], &[]));
    assert!(first.view.skills.is_empty());
    assert!(first.view.diagnostics[0].message.contains("rejected"));
    let fixed = absorb_into(&mut held, observation(2, None, vec![entry("x")], &[]));
    assert_eq!(names(&fixed), ["x"]);
    assert!(fixed.view.diagnostics.is_empty());
}

#[test]
fn a_kept_skills_field_warnings_last_as_long_as_it_does() {
    let mut held = Held::default();
    let odd = with_fields("odd", r#""context":"sideways""#);
    let first = absorb_into(&mut held, observation(1, None, vec![odd], &[]));
    let fields = |a: &Absorbed| -> Vec<Option<String>> {
        a.view.diagnostics.iter().map(|d| d.field.clone()).collect()
    };
    // No description, and a context that is neither inline nor fork.
    assert_eq!(
        fields(&first),
        [Some("description".into()), Some("context".into())]
    );
    // A delta that does not resend it keeps its warnings...
    let delta = absorb_into(&mut held, observation(2, Some(1), vec![entry("b")], &[]));
    assert_eq!(fields(&delta), fields(&first));
    // ...and they go with it.
    let gone = absorb_into(
        &mut held,
        observation(3, Some(2), vec![], &["/skills/0/odd/SKILL.md"]),
    );
    assert!(
        gone.view.diagnostics.is_empty(),
        "{:?}",
        gone.view.diagnostics
    );
}

#[test]
fn observations_from_another_instance_start_afresh() {
    let mut held = Held::default();
    held.follow(InstanceId::next());
    absorb_into(&mut held, observation(1, None, vec![entry("a")], &[]));
    held.follow(InstanceId::next());
    assert_eq!(held.epoch(), None);
}

#[test]
fn a_large_observation_is_checked_in_parallel_and_kept_as_if_checked_in_order() {
    // Past PARALLEL_FROM: every seventh entry is refused, one path is sent
    // twice (the later entry wins, as it would one by one).
    let count = PARALLEL_FROM * 2 + 5;
    let mut entries: Vec<wit::SkillEntry> = (0..count)
        .map(|i| {
            let mut e = entry(&format!("s{i:04}"));
            if i % 7 == 0 {
                e.path = format!("/elsewhere/{i}/SKILL.md");
            }
            e
        })
        .collect();
    let mut again = entry("s0001");
    again.json = r#"{"description":"the later one"}"#.into();
    entries.push(again);
    let mut held = Held::default();
    let absorbed = absorb_into(&mut held, observation(1, None, entries, &[]));
    let refused = (0..count).filter(|i| i % 7 == 0).count();
    assert_eq!(absorbed.received, count + 1);
    assert_eq!(absorbed.view.skills.len(), count - refused);
    let expected: Vec<String> = (0..count)
        .filter(|i| i % 7 != 0)
        .map(|i| format!("s{i:04}"))
        .collect();
    assert_eq!(names(&absorbed), expected);
    assert_eq!(rejected(&absorbed), refused);
    let s1 = absorbed.view.skills.iter().find(|s| s.name() == "s0001");
    assert_eq!(
        s1.and_then(|s| s.frontmatter.description.as_deref()),
        Some("the later one")
    );
}

#[test]
fn every_kept_skill_gets_the_source_scope_and_namespace_whether_checked_in_turn_or_in_parallel() {
    let from = Arc::new(sender(
        Caps::default(),
        Namespace(Some("team".into())),
        Scope::Remote,
    ));
    for count in [3, PARALLEL_FROM * 2] {
        let entries = (0..count)
            .map(|i| {
                let mut e = entry(&format!("s{i:04}"));
                e.json = format!(r#"{{"description":"d","aliases":["a{i:04}"]}}"#);
                e
            })
            .collect();
        let absorbed = absorb_all(
            &mut Held::default(),
            Entries::default(),
            observation(1, None, entries, &[]),
            &from,
        );
        assert_eq!(absorbed.view.skills.len(), count, "{count} entries");
        for (i, skill) in absorbed.view.skills.iter().enumerate() {
            assert_eq!(skill.name(), format!("team:s{i:04}"));
            assert_eq!(skill.frontmatter.aliases, vec![format!("team:a{i:04}")]);
            assert_eq!(skill.scope, Scope::Remote);
        }
    }
}

/// An entry whose description holds `bytes` bytes.
fn fat(name: &str, bytes: usize) -> wit::SkillEntry {
    with_fields(name, &format!(r#""description":"{}""#, "d".repeat(bytes)))
}

#[test]
fn what_a_provider_holds_is_budgeted_across_deltas_and_the_held_skills_stay() {
    let caps = Caps {
        max_provider_bytes: 10_000,
        max_skill_bytes: 6_000,
        ..Caps::default()
    };
    let mut held = Held::default();
    let first = absorb_with(
        &mut held,
        observation(1, None, vec![fat("a", 3_000), fat("b", 3_000)], &[]),
        caps,
    );
    assert_eq!(names(&first), ["a", "b"]);
    // Each delta adds two more fat skills, as the hostile provider did:
    // past the budget they are refused, and a and b stay.
    let mut epoch = 1;
    for round in 0..5 {
        epoch += 1;
        let delta = absorb_with(
            &mut held,
            observation(
                epoch,
                Some(epoch - 1),
                vec![
                    fat(&format!("x{round}"), 3_000),
                    fat(&format!("y{round}"), 3_000),
                ],
                &[],
            ),
            caps,
        );
        assert!(held.total <= caps.max_provider_bytes, "{}", held.total);
        assert!(
            names(&delta).starts_with(&["a", "b"]),
            "{:?}",
            names(&delta)
        );
        if round > 0 {
            assert!(
                delta
                    .view
                    .diagnostics
                    .iter()
                    .any(|d| d.message.contains("budget of 10000 bytes")),
                "{:?}",
                delta.view.diagnostics
            );
        }
    }
    // Replacing a held skill by one of the same size fits; removing frees.
    epoch += 1;
    let removed = absorb_with(
        &mut held,
        observation(epoch, Some(epoch - 1), vec![], &["/skills/0/a/SKILL.md"]),
        caps,
    );
    assert!(!names(&removed).contains(&"a"));
    // One skill over its own budget is refused at the boundary.
    let mut fresh = Held::default();
    let one = absorb_with(
        &mut fresh,
        observation(1, None, vec![fat("big", 7_000)], &[]),
        caps,
    );
    assert!(names(&one).is_empty());
    assert!(
        one.view
            .diagnostics
            .iter()
            .any(|d| d.message.contains("budget for one skill"))
    );
}
