//! Applying an observation — whole, or the changes since one the host
//! holds — to what the host keeps of a provider, validating every new entry
//! at the boundary. No instance is touched: the observation is data. A
//! large one is checked on two threads (each entry's checks stand alone).

use super::ahead::Early;
use super::boundary::{self, Caps};
use super::namespace::Namespace;
use super::view::ProviderView;
use crate::cores::cores;
use crate::model::{Diagnostic, Scope, Skill};
use crate::sandbox::Grants;
use crate::sandbox::InstanceId;
use crate::sandbox::contract as wit;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// What the host holds of one instance's observations, so the provider can
/// answer with changes only.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The instance these observations came from.
    instance: Option<InstanceId>,
    /// The last observation's epoch.
    epoch: Option<u64>,
    /// Valid skills by the provider's document path.
    skills: BTreeMap<String, Arc<Skill>>,
    /// Entries refused at the boundary, by document path.
    rejected: BTreeMap<String, Diagnostic>,
    /// The field rules' warnings about kept skills, by document path: a
    /// delta does not resend an unchanged entry, so they are kept with it.
    warnings: BTreeMap<String, Vec<Diagnostic>>,
    /// What each kept skill costs, by document path, and their sum: the
    /// provider's budget is checked against what is held across deltas,
    /// not only one observation.
    sizes: BTreeMap<String, usize>,
    total: usize,
}

impl Held {
    fn forget(&mut self, path: &str) {
        self.skills.remove(path);
        self.warnings.remove(path);
        if let Some(size) = self.sizes.remove(path) {
            self.total = self.total.saturating_sub(size);
        }
    }

    fn forget_all(&mut self) {
        self.skills.clear();
        self.rejected.clear();
        self.warnings.clear();
        self.sizes.clear();
        self.total = 0;
    }
}

impl Held {
    /// Starts afresh when the observations would come from another
    /// instance: what an earlier one sent means nothing to it.
    pub(crate) fn follow(&mut self, instance: InstanceId) {
        if self.instance != Some(instance) {
            *self = Held {
                instance: Some(instance),
                ..Held::default()
            };
        }
    }

    /// The epoch to pass back as `known`.
    pub(crate) fn epoch(&self) -> Option<u64> {
        self.epoch
    }

    /// Forgets everything (the instance faulted).
    pub(crate) fn clear(&mut self) {
        *self = Held::default();
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

/// The result: the provider's view, and how many entries crossed.
pub(crate) struct Absorbed {
    pub view: ProviderView,
    pub received: usize,
}

/// Observations with at least this many entries (and no more than a
/// provider may send) are validated on two threads up front: the guest has
/// returned, so the core its read-ahead used is idle, and each entry's
/// checks stand alone. Smaller ones, and oversized ones (whose surplus is
/// dropped unchecked), are checked one by one as they are taken.
const PARALLEL_FROM: usize = 256;

/// One entry on its way through the boundary. A checked skill is already
/// in the `Arc` the host keeps it in, so moving entries between threads and
/// lists copies a pointer, not a whole record.
pub(super) struct Incoming {
    pub path: String,
    /// What it costs to hold.
    pub size: usize,
    pub check: Check,
}

/// A skill that passed the boundary, and the field rules' warnings about it.
pub(super) type Kept = (Arc<Skill>, Vec<Diagnostic>);

pub(super) enum Check {
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
    pub(super) fn new(entry: wit::SkillEntry, now: Option<&Source<'_>>) -> Incoming {
        Incoming {
            path: entry.path.clone(),
            size: boundary::entry_bytes(&entry),
            check: match now {
                Some(from) => Check::Done(checked(entry, from)),
                None => Check::Due(Box::new(entry)),
            },
        }
    }

    fn skill(self, from: &Source<'_>) -> (String, usize, Result<Kept, String>) {
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
fn incoming(entries: Vec<wit::SkillEntry>, from: &Source<'_>) -> Vec<Vec<Incoming>> {
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

/// Applies `obs` to `held`, the entries the provider sent ahead of it
/// (`early`) leading its list.
pub(crate) fn absorb(
    held: &mut Held,
    early: Early,
    obs: wit::Observation,
    from: &Source<'_>,
) -> Absorbed {
    let caps = from.caps;
    match obs.base {
        None => held.forget_all(),
        Some(base) if Some(base) == held.epoch => {
            for path in obs.removed.iter().take(caps.max_skills) {
                held.forget(path);
                held.rejected.remove(path);
            }
        }
        Some(base) => {
            let message = format!(
                "answered with changes since observation {base}, but the host holds {:?}; asking for everything again",
                held.epoch
            );
            held.epoch = None;
            held.forget_all();
            return Absorbed {
                view: ProviderView {
                    diagnostics: vec![
                        Diagnostic::error(from.location, message).from_source(from.id),
                    ],
                    ..ProviderView::default()
                },
                received: 0,
            };
        }
    }
    let received = early.received.saturating_add(obs.skills.len());
    let mut overflow = early.dropped;
    let mut too_big = 0usize;
    let mut over_budget = 0usize;
    let mut unremembered = 0usize;
    let mut bytes = 0usize;
    let answered = incoming(obs.skills, from).into_iter().flatten();
    for entry in early.entries.into_iter().chain(answered) {
        if held.skills.len() >= caps.max_skills && !held.skills.contains_key(&entry.path) {
            overflow += 1;
            continue;
        }
        let (path, size, skill) = entry.skill(from);
        let skill = skill.and_then(|kept| match size > caps.max_skill_bytes {
            true => Err(format!(
                "the entry is {size} bytes, over the {} byte budget for one skill",
                caps.max_skill_bytes
            )),
            false => Ok(kept),
        });
        // What the provider would hold with this entry in place of the one
        // at its path.
        let replaced = held.sizes.get(&path).copied().unwrap_or(0);
        let after = held.total.saturating_sub(replaced).saturating_add(size);
        match skill {
            // What the host keeps of one observation is bounded; an entry
            // refused at the boundary is dropped, so only kept ones count.
            Ok(_) if bytes.saturating_add(size) > caps.max_observation_bytes => {
                too_big += 1;
            }
            // So is what it keeps of a provider, across deltas: the entry
            // is refused and the one held at its path stays.
            Ok(_) if after > caps.max_provider_bytes => {
                over_budget += 1;
            }
            Ok((skill, warnings)) => {
                bytes += size;
                held.rejected.remove(&path);
                if warnings.is_empty() {
                    held.warnings.remove(&path);
                } else {
                    held.warnings.insert(path.clone(), warnings);
                }
                held.total = after;
                held.sizes.insert(path.clone(), size);
                held.skills.insert(path, skill);
            }
            Err(reason) => {
                held.forget(&path);
                if held.rejected.len() >= caps.max_rejected && !held.rejected.contains_key(&path) {
                    unremembered += 1;
                    continue;
                }
                let d = boundary::rejected(&path, from.grants, from.id, &reason);
                held.rejected.insert(path, d);
            }
        }
    }
    held.epoch = Some(obs.epoch);
    let mut diagnostics: Vec<Diagnostic> = held.rejected.values().cloned().collect();
    diagnostics.extend(held.warnings.values().flatten().cloned());
    if overflow > 0 {
        diagnostics.push(
            Diagnostic::error(
                from.location,
                format!(
                    "provider {} returned more than {} skills; {overflow} were dropped",
                    from.id, caps.max_skills
                ),
            )
            .from_source(from.id),
        );
    }
    if too_big > 0 {
        diagnostics.push(
            Diagnostic::error(
                from.location,
                format!(
                    "provider {} sent more than {} bytes of entries in one observation; {too_big} were dropped",
                    from.id, caps.max_observation_bytes
                ),
            )
            .from_source(from.id),
        );
    }
    if over_budget > 0 {
        diagnostics.push(
            Diagnostic::error(
                from.location,
                format!(
                    "provider {} would hold more than its budget of {} bytes of skills; \
                     {over_budget} entries were refused and what it held is kept",
                    from.id, caps.max_provider_bytes
                ),
            )
            .from_source(from.id),
        );
    }
    if unremembered > 0 {
        diagnostics.push(
            Diagnostic::error(
                from.location,
                format!(
                    "provider {}: {unremembered} more entries were refused beyond the {} the host keeps diagnostics for",
                    from.id, caps.max_rejected
                ),
            )
            .from_source(from.id),
        );
    }
    diagnostics.extend(boundary::diagnostics(
        obs.diagnostics,
        from.grants,
        from.id,
        caps,
    ));
    Absorbed {
        view: ProviderView {
            skills: held.skills.values().cloned().collect(),
            diagnostics,
            complete: obs.complete,
            ..ProviderView::default()
        },
        received,
    }
}

#[cfg(test)]
#[path = "absorb_tests.rs"]
pub(super) mod tests;
