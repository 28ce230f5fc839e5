use super::*;
use skillhost::{Location, Scope};
use skillhost_skill::frontmatter::Frontmatter;

fn entry(name: &str, description: &str) -> ObservedEntry {
    let mut frontmatter = Frontmatter::defaults(name);
    frontmatter.description = Some(description.to_string());
    ObservedEntry {
        path: format!("/skills/0/{name}/SKILL.md"),
        bytes: 0,
        verdict: Ok(Skill {
            source: "p".to_string(),
            scope: Scope::User,
            path: Location::Path(format!("/r/{name}/SKILL.md").into()),
            base: Location::Path(format!("/r/{name}").into()),
            frontmatter,
            json: None,
        }),
        warnings: Vec::new(),
    }
}

fn observed(
    epoch: u64,
    base: Option<u64>,
    entries: Vec<ObservedEntry>,
    removed: &[&str],
) -> Observed {
    Observed {
        epoch,
        base,
        entries,
        dropped: 0,
        removed: removed.iter().map(|r| r.to_string()).collect(),
        diagnostics: Vec::new(),
        complete: true,
    }
}

fn names(held: &Held) -> Vec<&str> {
    held.skills().values().map(|s| s.name()).collect()
}

#[test]
fn a_delta_on_the_held_epoch_adds_changes_and_removes() {
    let mut held = Held::new(&observed(
        1,
        None,
        vec![entry("a", "A"), entry("b", "B")],
        &[],
    ));
    let delta = observed(
        2,
        Some(1),
        vec![entry("b", "B again"), entry("c", "C")],
        &["/skills/0/a/SKILL.md"],
    );
    assert_eq!(held.absorb(delta), Ok(true));
    assert_eq!(names(&held), ["b", "c"]);
    let b = held
        .skills()
        .values()
        .find(|s| s.name() == "b")
        .map(|s| s.description());
    assert_eq!(b, Some(Some("B again")));
    assert_eq!(held.epoch, 2);
}

#[test]
fn a_whole_answer_replaces_what_is_held() {
    let mut held = Held::new(&observed(1, None, vec![entry("a", "A")], &[]));
    assert_eq!(
        held.absorb(observed(5, None, vec![entry("z", "Z")], &[])),
        Ok(false)
    );
    assert_eq!(names(&held), ["z"]);
}

#[test]
fn a_delta_on_another_epoch_is_refused_naming_both() {
    let mut held = Held::new(&observed(3, None, vec![entry("a", "A")], &[]));
    let message = held
        .absorb(observed(4, Some(2), Vec::new(), &[]))
        .unwrap_err();
    assert!(
        message.contains("since observation 2") && message.contains("holds 3"),
        "{message}"
    );
}

#[test]
fn differences_name_what_is_missing_stale_or_left_over() {
    let (a, b, b2, c) = (
        entry("a", "A"),
        entry("b", "B"),
        entry("b", "B2"),
        entry("c", "C"),
    );
    let held = valid([&a, &b].into_iter());
    let full = valid([&b2, &c].into_iter());
    let diff = differences(&held, &full);
    assert_eq!(
        diff,
        ["b is out of date", "c is missing", "a is still listed"]
    );
}
