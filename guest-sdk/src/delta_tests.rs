//! The delta bookkeeping against the host's side of the exchange.

use super::*;
use crate::WitFrontmatter;

fn entry(path: &str) -> SkillEntry {
    SkillEntry {
        name: "x".to_string(),
        frontmatter: WitFrontmatter {
            raw: String::new(),
            json: "{}".to_string(),
        },
        path: path.to_string(),
        base: path.to_string(),
    }
}

/// Entries looked up by a function, or a fixed "everything".
struct Fixed<F> {
    lookup: F,
    all: Vec<&'static str>,
}

impl<F: FnMut(&str) -> Option<SkillEntry>> Entries for Fixed<F> {
    fn entry(&mut self, path: &str) -> Option<SkillEntry> {
        (self.lookup)(path)
    }
    fn all(&mut self) -> Vec<SkillEntry> {
        self.all.iter().map(|p| entry(p)).collect()
    }
}

fn fixed<F: FnMut(&str) -> Option<SkillEntry>>(lookup: F, all: &[&'static str]) -> Fixed<F> {
    Fixed {
        lookup,
        all: all.to_vec(),
    }
}

fn paths(observation: &Observation) -> Vec<&str> {
    observation.skills.iter().map(|s| s.path.as_str()).collect()
}

#[test]
fn a_host_holding_nothing_gets_everything() {
    let mut changes = Changes::new();
    changes.changed("/a");
    let first = changes.observation(
        None,
        &mut fixed(|p| Some(entry(p)), &["/a", "/b"]),
        vec![],
        true,
    );
    assert_eq!(first.base, None);
    assert_eq!(paths(&first), ["/a", "/b"]);
    // An epoch the provider never sent (or an old one) gets everything too.
    let stale = changes.observation(
        Some(first.epoch + 7),
        &mut fixed(|p| Some(entry(p)), &["/a"]),
        vec![],
        true,
    );
    assert_eq!(stale.base, None);
}

#[test]
fn a_host_holding_the_last_observation_gets_only_the_changes() {
    let mut changes = Changes::new();
    let first = changes.observation(None, &mut fixed(|_| None, &["/a", "/b"]), vec![], true);
    let unchanged = changes.observation(
        Some(first.epoch),
        &mut fixed(|_| panic!("nothing changed"), &[]),
        vec![],
        true,
    );
    assert_eq!(unchanged.base, Some(first.epoch));
    assert!(unchanged.skills.is_empty() && unchanged.removed.is_empty());
    changes.changed("/a");
    changes.removed("/b");
    changes.changed("/c");
    let delta = changes.observation(
        Some(unchanged.epoch),
        &mut fixed(|p| Some(entry(p)), &[]),
        vec![],
        true,
    );
    assert_eq!(delta.base, Some(unchanged.epoch));
    assert_eq!(paths(&delta), ["/a", "/c"]);
    assert_eq!(delta.removed, ["/b"]);
    assert!(delta.epoch > unchanged.epoch);
}

#[test]
fn an_entry_that_stopped_being_a_skill_is_sent_as_removed() {
    let mut changes = Changes::new();
    let first = changes.observation(None, &mut fixed(|_| None, &["/a"]), vec![], true);
    changes.changed("/a");
    let delta = changes.observation(Some(first.epoch), &mut fixed(|_| None, &[]), vec![], true);
    assert!(delta.skills.is_empty());
    assert_eq!(delta.removed, ["/a"]);
}

#[test]
fn a_removal_undone_before_the_next_snapshot_is_a_change() {
    let mut changes = Changes::new();
    let first = changes.observation(None, &mut fixed(|_| None, &[]), vec![], true);
    changes.removed("/a");
    changes.changed("/a");
    let delta = changes.observation(
        Some(first.epoch),
        &mut fixed(|p| Some(entry(p)), &[]),
        vec![],
        true,
    );
    assert_eq!(paths(&delta), ["/a"]);
    assert!(delta.removed.is_empty());
}

#[test]
fn touching_moves_the_epoch_without_resending() {
    let mut changes = Changes::new();
    let first = changes.observation(None, &mut fixed(|_| None, &[]), vec![], true);
    changes.touched();
    assert!(!changes.holds(Some(first.epoch + 1)));
    assert!(changes.holds(Some(first.epoch)));
    let delta = changes.observation(
        Some(first.epoch),
        &mut fixed(|_| panic!("no entry changed"), &[]),
        vec![],
        false,
    );
    assert_eq!(delta.epoch, first.epoch + 1);
    assert!(!delta.complete);
}
