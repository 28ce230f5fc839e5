//! Entries on their way through the boundary: who sent them ([`Source`]),
//! and each entry checked now or when it is taken ([`Incoming`]). Both the
//! entries a provider sends ahead of its answer and those in the answer
//! pass through here, so they meet the same checks.

use super::boundary::{self, Caps};
use super::namespace::Namespace;
use crate::cores::cores;
use crate::model::{Diagnostic, Scope, Skill};
use crate::sandbox::Grants;
use crate::sandbox::contract as wit;
use std::sync::{Arc, Mutex};

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

/// Observations with at least this many entries (and no more than a
/// provider may send) are validated on two threads up front: the guest has
/// returned, so the core its read-ahead used is idle, and each entry's
/// checks stand alone. Smaller ones, and oversized ones (whose surplus is
/// dropped unchecked), are checked one by one as they are taken.
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

/// The entries in order, checked already when there are many: one list, or
/// two halves checked on two threads (taken in turn, never joined into one
/// list, which would copy every entry once more).
pub(crate) fn incoming(entries: Vec<wit::SkillEntry>, from: &Source<'_>) -> Vec<Vec<Incoming>> {
    let arrive = |part: Vec<wit::SkillEntry>, now: bool| -> Vec<Incoming> {
        part.into_iter()
            .map(|entry| Incoming::new(entry, now.then_some(from)))
            .collect()
    };
    let many = (PARALLEL_FROM..=from.caps.max_skills).contains(&entries.len());
    if !many || cores() < 2 {
        return vec![arrive(entries, false)];
    }
    let check_all = |part| arrive(part, true);
    let mut first = entries;
    // Held aside so that, should no thread start, this one checks them.
    let second = Mutex::new(first.split_off(first.len() / 2));
    let take = || std::mem::take(&mut *crate::sync::lock(&second));
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("skillhost-boundary".to_string())
            .spawn_scoped(scope, || check_all(take()));
        let out = check_all(first);
        let rest = match helper {
            Ok(helper) => match helper.join() {
                Ok(rest) => rest,
                // Only a host bug panics here; it would have on this thread.
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => check_all(take()),
        };
        vec![out, rest]
    })
}
