//! `delta`: after each change the kit makes to the fixture, the host's
//! view built from the provider's answers (deltas applied to what it
//! held) equals a full snapshot of a fresh instance; `on-change`: the
//! provider watches the paths that change, and invalidates for a catalog
//! change but not for a body-only edit.

use crate::fixture::Fixture;
use crate::report::Check;
use crate::session::Session;
use skillhost::Skill;
use skillhost::provider::direct::{Observed, ObservedEntry};
use std::collections::BTreeMap;

/// What the host holds of the provider's observations.
struct Held {
    epoch: u64,
    entries: BTreeMap<String, ObservedEntry>,
}

impl Held {
    fn new(first: &Observed) -> Held {
        Held {
            epoch: first.epoch,
            entries: by_path(first),
        }
    }

    /// Applies an answer as the host does; says whether it was a delta.
    fn absorb(&mut self, observed: Observed) -> Result<bool, String> {
        let delta = match observed.base {
            None => {
                self.entries.clear();
                false
            }
            Some(base) if base == self.epoch => {
                for path in &observed.removed {
                    self.entries.remove(path);
                }
                true
            }
            Some(base) => {
                return Err(format!(
                    "answered with changes since observation {base}, but the host holds {}",
                    self.epoch
                ));
            }
        };
        self.epoch = observed.epoch;
        for entry in observed.entries {
            self.entries.insert(entry.path.clone(), entry);
        }
        Ok(delta)
    }

    fn skills(&self) -> BTreeMap<&str, &Skill> {
        valid(self.entries.values())
    }
}

fn by_path(observed: &Observed) -> BTreeMap<String, ObservedEntry> {
    observed
        .entries
        .iter()
        .map(|e| (e.path.clone(), e.clone()))
        .collect()
}

fn valid<'a>(entries: impl Iterator<Item = &'a ObservedEntry>) -> BTreeMap<&'a str, &'a Skill> {
    entries
        .filter_map(|e| Some((e.path.as_str(), e.verdict.as_ref().ok()?)))
        .collect()
}

/// How the held view differs from a full one, by name.
fn differences(held: &BTreeMap<&str, &Skill>, full: &BTreeMap<&str, &Skill>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, skill) in full {
        match held.get(path) {
            None => out.push(format!("{} is missing", skill.name())),
            Some(h) if h != skill => out.push(format!("{} is out of date", skill.name())),
            Some(_) => {}
        }
    }
    for (path, skill) in held {
        if !full.contains_key(path) {
            out.push(format!("{} is still listed", skill.name()));
        }
    }
    out
}

/// Runs every step of the fixture and judges both checks.
pub(crate) fn check(session: &mut Session, fixture: &mut Fixture, first: &Observed) -> [Check; 2] {
    let mut held = Held::new(first);
    let (mut delta_problems, mut change_problems) = (Vec::new(), Vec::new());
    let (mut deltas, mut fulls) = (0, 0);
    for (index, step) in Fixture::steps().into_iter().enumerate() {
        if let Err(e) = fixture.apply(index) {
            let message = format!("{}: the kit could not change its fixture: {e}", step.what);
            return [
                Check::fail("delta", &message),
                Check::fail("on-change", message),
            ];
        }
        let events: Vec<_> = step
            .events
            .iter()
            .map(|(path, kind)| (fixture.path(path), *kind))
            .collect();
        let watches = session.instance().map(|i| i.watches()).unwrap_or_default();
        for (path, _) in &events {
            if !watches.iter().any(|w| w.covers(path)) {
                change_problems.push(format!(
                    "{}: it watches nothing that covers {}, so the host would not tell it",
                    step.what,
                    path.display()
                ));
            }
        }
        let before = session.invalidations();
        let delivered = session.call("on-change", format!("on-change ({})", step.what), |i| {
            i.on_change(&events)
        });
        let invalidated = session.invalidations() > before;
        match delivered {
            Err(e) => {
                change_problems.push(format!("{}: on-change: {}", step.what, super::said(&e)))
            }
            Ok(_) if step.catalog_change && !invalidated => change_problems.push(format!(
                "{}: on-change did not invalidate, so the host would keep showing the old catalog",
                step.what
            )),
            Ok(_) if !step.catalog_change && invalidated => change_problems.push(format!(
                "{}: on-change invalidated, though the catalog did not change",
                step.what
            )),
            Ok(_) => {}
        }
        let answer = session.snapshot(Some(held.epoch), false);
        let full = session.fresh_snapshot();
        let (answer, full) = match (answer, full) {
            (Ok(a), Ok(f)) => (a, f),
            (Err(e), _) | (_, Err(e)) => {
                delta_problems.push(format!("{}: {}", step.what, super::said(&e)));
                held = match session.snapshot(None, true) {
                    Ok(o) => Held::new(&o),
                    Err(_) => {
                        return [
                            Check::from_problems("delta", &delta_problems, ""),
                            Check::from_problems("on-change", &change_problems, ""),
                        ];
                    }
                };
                continue;
            }
        };
        match held.absorb(answer) {
            Ok(true) => deltas += 1,
            Ok(false) => fulls += 1,
            Err(e) => {
                delta_problems.push(format!("{}: {e}", step.what));
                held = Held::new(&full);
                continue;
            }
        }
        let fresh = valid(full.entries.iter());
        let diff = differences(&held.skills(), &fresh);
        if !diff.is_empty() {
            delta_problems.push(format!(
                "{}: the view built from its answers differs from a full snapshot: {}",
                step.what,
                diff.join(", ")
            ));
            held = Held::new(&full);
        }
    }
    let steps = Fixture::steps().len();
    [
        Check::from_problems(
            "delta",
            &delta_problems,
            format!(
                "after {steps} changes ({deltas} answered as deltas, {fulls} whole) the host's view equals a fresh full snapshot"
            ),
        ),
        Check::from_problems(
            "on-change",
            &change_problems,
            format!(
                "invalidated for each of {} catalog changes and not for the body-only edit",
                Fixture::steps().iter().filter(|s| s.catalog_change).count()
            ),
        ),
    ]
}

/// `delta` for a provider the kit has no fixture of (it reads no folder,
/// or was given roots the kit never changes): asked again with nothing
/// changed, it answers with an empty delta or its whole list, and the view
/// built from that answer equals a fresh instance's full snapshot.
pub(crate) fn unchanged(session: &mut Session, first: &Observed) -> Check {
    let mut held = Held::new(first);
    let answer = match session.snapshot(Some(held.epoch), false) {
        Ok(answer) => answer,
        Err(e) => return Check::fail("delta", format!("asked again: {}", super::said(&e))),
    };
    let full = match session.fresh_snapshot() {
        Ok(full) => full,
        Err(e) => {
            return Check::fail(
                "delta",
                format!("a fresh instance's snapshot: {}", super::said(&e)),
            );
        }
    };
    let how = match held.absorb(answer) {
        Ok(true) => "as a delta",
        Ok(false) => "whole",
        Err(e) => return Check::fail("delta", e),
    };
    let diff = differences(&held.skills(), &valid(full.entries.iter()));
    if diff.is_empty() {
        Check::pass(
            "delta",
            format!(
                "asked again with nothing changed, it answered {how}, and the host's view equals a fresh full snapshot"
            ),
        )
    } else {
        Check::fail(
            "delta",
            format!(
                "asked again with nothing changed, the view built from its answer differs from a fresh full snapshot: {}",
                diff.join(", ")
            ),
        )
    }
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;
