//! Applying an observation — whole, or the changes since one the host
//! holds — to what the host keeps of a provider, validating every new entry
//! at the boundary. No instance, thread or lock is touched: the entries and
//! the observation are data, and entries checked already (on the engine's
//! workers, by `incoming` and `ahead`) are taken as they are.

use super::boundary;
use super::incoming::{Entries, Source};
use super::view::ProviderView;
use crate::model::{Diagnostic, Skill};
use crate::sandbox::InstanceId;
use crate::sandbox::contract as wit;
use std::collections::BTreeMap;
use std::sync::Arc;

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

/// The result: the provider's view, and how many entries crossed.
pub(crate) struct Absorbed {
    pub view: ProviderView,
    pub received: usize,
}

/// Applies `obs` to `held`, with `entries` as its list: those sent ahead,
/// then its own, taken out of it by [`Entries::and_answered`].
pub(crate) fn absorb(
    held: &mut Held,
    entries: Entries,
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
    let received = entries.received;
    let mut overflow = entries.dropped;
    let mut too_big = 0usize;
    let mut over_budget = 0usize;
    let mut unremembered = 0usize;
    let mut bytes = 0usize;
    for entry in entries.parts.into_iter().flatten() {
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
