//! Entries on their way through the boundary: who sent them ([`Sender`],
//! borrowed as [`Source`]), each entry checked now or when it is taken
//! ([`Incoming`]), and all of one answer's entries in order ([`Entries`]).
//! Both the entries a provider sends ahead of its answer and those in the
//! answer pass through here, so they meet the same checks.
//!
//! Checking a long answer's entries in two halves is this module's
//! speedup (`Speedups::parallel_checks`): the guest has returned, so the
//! core its read-ahead used is idle, and each entry's checks stand alone.

use super::boundary::{self, Caps};
use super::namespace::Namespace;
use crate::cores::cores;
use crate::model::{Diagnostic, Scope, Skill};
use crate::sandbox::contract as wit;
use crate::sandbox::{Grants, Workers};
use std::sync::Arc;

/// Who the entries are from, owned, so a worker can check them.
pub(super) struct Sender {
    pub grants: Arc<Grants>,
    pub id: String,
    pub caps: Caps,
    pub namespace: Namespace,
    pub scope: Scope,
    pub location: String,
}

impl Sender {
    /// The same, borrowed, as absorb takes it.
    pub(super) fn source(&self) -> Source<'_> {
        Source {
            grants: &self.grants,
            id: &self.id,
            caps: &self.caps,
            namespace: &self.namespace,
            scope: self.scope,
            location: &self.location,
        }
    }
}

/// Who the observation is from, for validation and messages.
pub(crate) struct Source<'a> {
    /// The instance's grants, to translate paths.
    pub grants: &'a Grants,
    /// The provider's id.
    pub id: &'a str,
    /// Caps on what it may return.
    pub caps: &'a Caps,
    /// Where its skills are listed.
    pub namespace: &'a Namespace,
    /// Its scope.
    pub scope: Scope,
    /// Where diagnostics about the provider as a whole point.
    pub location: &'a str,
}

/// Answers with at least this many entries (and no more than a provider
/// may send) are checked in two halves up front. Smaller ones, and
/// oversized ones (whose surplus is dropped unchecked), are checked one by
/// one as they are taken.
pub(super) const PARALLEL_FROM: usize = 256;

/// One entry on its way through the boundary. A checked skill is already
/// in the `Arc` the host keeps it in, so moving entries between threads and
/// lists copies a pointer, not a whole record.
pub(crate) struct Incoming {
    pub path: String,
    /// What it costs to hold.
    pub size: usize,
    pub check: Check,
}

/// A skill that passed the boundary, and the field rules' warnings about it.
pub(crate) type Kept = (Arc<Skill>, Vec<Diagnostic>);

pub(crate) enum Check {
    Done(Result<Kept, String>),
    /// Boxed, so a list of checked entries is a list of pointers.
    Due(Box<wit::SkillEntry>),
}

/// Validates one entry and gives it the source's scope and namespace.
fn checked(entry: wit::SkillEntry, from: &Source<'_>) -> Result<Kept, String> {
    let boundary::Checked {
        mut skill,
        warnings,
    } = boundary::skill(entry, from.grants, from.id, from.caps)?;
    skill.scope = from.scope;
    from.namespace.apply(&mut skill);
    Ok((Arc::new(skill), warnings))
}

impl Incoming {
    /// `entry` on its way in: checked now against `now`'s source, or else
    /// when it is taken.
    pub(crate) fn new(entry: wit::SkillEntry, now: Option<&Source<'_>>) -> Incoming {
        Incoming {
            path: entry.path.clone(),
            size: boundary::entry_bytes(&entry),
            check: match now {
                Some(from) => Check::Done(checked(entry, from)),
                None => Check::Due(Box::new(entry)),
            },
        }
    }

    pub(crate) fn skill(self, from: &Source<'_>) -> (String, usize, Result<Kept, String>) {
        let skill = match self.check {
            Check::Done(skill) => skill,
            Check::Due(entry) => checked(*entry, from),
        };
        (self.path, self.size, skill)
    }
}

/// All the entries of one answer as absorb takes them, in the order they
/// lead its list: those sent ahead, then the answer's own.
#[derive(Default)]
pub(crate) struct Entries {
    /// The entries kept, in parts taken in turn (never joined into one
    /// list, which would copy every entry once more).
    pub parts: Vec<Vec<Incoming>>,
    /// Entries that crossed in all.
    pub received: usize,
    /// Entries past `caps.max_skills`, dropped unexamined.
    pub dropped: usize,
}

impl Entries {
    /// These entries followed by the answer's own (taken out of `obs`),
    /// checked already when there are many: in two halves, the second on
    /// one of `workers`.
    pub(crate) fn and_answered(
        mut self,
        obs: &mut wit::Observation,
        from: &Arc<Sender>,
        workers: &Workers,
    ) -> Entries {
        let entries = std::mem::take(&mut obs.skills);
        self.received = self.received.saturating_add(entries.len());
        let many = (PARALLEL_FROM..=from.caps.max_skills).contains(&entries.len());
        if !many || cores() < 2 || !workers.speedups().parallel_checks {
            self.parts.push(arrive(entries, None));
            return self;
        }
        let mut first = entries;
        let second = first.split_off(first.len() / 2);
        let for_worker = from.clone();
        let rest = workers.submit(move || arrive(second, Some(&for_worker.source())));
        self.parts.push(arrive(first, Some(&from.source())));
        self.parts.push(rest.join());
        self
    }
}

/// `part` on its way in, checked now against `now`'s source or else when
/// each entry is taken.
pub(super) fn arrive(part: Vec<wit::SkillEntry>, now: Option<&Source<'_>>) -> Vec<Incoming> {
    part.into_iter()
        .map(|entry| Incoming::new(entry, now))
        .collect()
}
