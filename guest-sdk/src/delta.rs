//! Answering snapshots with changes only.
//!
//! The host passes back the epoch of the last observation it holds from
//! this instance (`snapshot-request.known`). A provider that knows what
//! changed since it sent that observation answers with only those entries
//! and the documents that left; otherwise it sends everything. [`Changes`]
//! is the bookkeeping for that: providers record what happened to each
//! entry (keyed by its document path) as they notice it, and
//! [`Changes::observation`] turns the record into the right answer, asking
//! the provider's [`Entries`] for what it must send.

use crate::{Diagnostic, Observation, SkillEntry};
use std::collections::BTreeSet;

/// Where the entries an observation carries come from.
pub trait Entries {
    /// The current entry at document `path`; `None` when it is not a skill
    /// now (the host then drops it).
    fn entry(&mut self, path: &str) -> Option<SkillEntry>;
    /// Every current entry.
    fn all(&mut self) -> Vec<SkillEntry>;
}

/// A list of entries kept whole.
impl Entries for &[SkillEntry] {
    fn entry(&mut self, path: &str) -> Option<SkillEntry> {
        self.iter().find(|e| e.path == path).cloned()
    }

    fn all(&mut self) -> Vec<SkillEntry> {
        self.to_vec()
    }
}

/// What changed since the last observation sent.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    epoch: u64,
    sent: Option<u64>,
    changed: BTreeSet<String>,
    removed: BTreeSet<String>,
}

impl Changes {
    /// Nothing recorded, nothing sent.
    pub fn new() -> Self {
        Changes::default()
    }

    /// The current epoch: it advances with everything recorded.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The entry at document `path` appeared, changed, or may have stopped
    /// being a skill: it is sent again (or as removed, if it is no longer
    /// a skill when the observation is made).
    pub fn changed(&mut self, path: &str) {
        self.epoch += 1;
        // Until something is sent no host holds an observation to answer
        // with changes: the first answer is whole, so nothing is kept (a
        // cold scan of many entries would otherwise fill the sets for
        // nothing).
        if self.sent.is_none() {
            return;
        }
        self.removed.remove(path);
        self.changed.insert(path.to_string());
    }

    /// The entry at document `path` left.
    pub fn removed(&mut self, path: &str) {
        self.epoch += 1;
        if self.sent.is_none() {
            return;
        }
        self.changed.remove(path);
        self.removed.insert(path.to_string());
    }

    /// Something else the host sees changed (a diagnostic, completeness):
    /// the epoch moves, no entry is sent again.
    pub fn touched(&mut self) {
        self.epoch += 1;
    }

    /// Whether a host holding observation `known` can be answered with
    /// changes (it holds the last one sent).
    pub fn holds(&self, known: Option<u64>) -> bool {
        known.is_some() && known == self.sent
    }

    /// The observation for a host holding `known`: changes only when
    /// [`Changes::holds`], everything otherwise, the entries taken from
    /// `entries`. What is recorded counts as sent afterwards.
    pub fn observation(
        &mut self,
        known: Option<u64>,
        entries: &mut impl Entries,
        diagnostics: Vec<Diagnostic>,
        complete: bool,
    ) -> Observation {
        let (base, skills, removed) = if self.holds(known) {
            let mut removed: Vec<String> = std::mem::take(&mut self.removed).into_iter().collect();
            let mut skills = Vec::with_capacity(self.changed.len());
            for path in std::mem::take(&mut self.changed) {
                match entries.entry(&path) {
                    Some(skill) => skills.push(skill),
                    None => removed.push(path),
                }
            }
            (known, skills, removed)
        } else {
            self.changed.clear();
            self.removed.clear();
            (None, entries.all(), Vec::new())
        };
        self.sent = Some(self.epoch);
        Observation {
            epoch: self.epoch,
            base,
            skills,
            removed,
            diagnostics,
            complete,
        }
    }
}

#[cfg(test)]
#[path = "delta_tests.rs"]
mod tests;
