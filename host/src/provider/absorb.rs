//! Applying an observation — whole, or the changes since one the host
//! holds — to what the host keeps of a provider, validating every new entry
//! at the boundary. Pure: no instance, no locks.

use super::boundary::{self, Caps};
use super::namespace::Namespace;
use super::view::ProviderView;
use crate::model::{Diagnostic, Scope};
use crate::sandbox::Grants;
use crate::sandbox::InstanceId;
use crate::sandbox::bindings::latest::types as wit;
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
    skills: BTreeMap<String, Arc<crate::model::Skill>>,
    /// Entries refused at the boundary, by document path.
    rejected: BTreeMap<String, Diagnostic>,
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

/// Applies `obs` to `held`.
pub(crate) fn absorb(held: &mut Held, obs: wit::Observation, from: &Source<'_>) -> Absorbed {
    let caps = from.caps;
    match obs.base {
        None => {
            held.skills.clear();
            held.rejected.clear();
        }
        Some(base) if Some(base) == held.epoch => {
            for path in obs.removed.iter().take(caps.max_skills) {
                held.skills.remove(path);
                held.rejected.remove(path);
            }
        }
        Some(base) => {
            let message = format!(
                "answered with changes since observation {base}, but the host holds {:?}; asking for everything again",
                held.epoch
            );
            held.epoch = None;
            held.skills.clear();
            held.rejected.clear();
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
    let received = obs.skills.len();
    let mut overflow = 0usize;
    let mut too_big = 0usize;
    let mut unremembered = 0usize;
    let mut bytes = 0usize;
    for entry in obs.skills {
        if held.skills.len() >= caps.max_skills && !held.skills.contains_key(&entry.path) {
            overflow += 1;
            continue;
        }
        let size = boundary::entry_bytes(&entry);
        let path = entry.path.clone();
        match boundary::skill(entry, from.grants, from.id, caps) {
            // What the host keeps of one observation is bounded; an entry
            // refused at the boundary is dropped, so only kept ones count.
            Ok(_) if bytes.saturating_add(size) > caps.max_observation_bytes => {
                too_big += 1;
            }
            Ok(mut skill) => {
                bytes += size;
                skill.scope = from.scope;
                from.namespace.apply(&mut skill);
                held.rejected.remove(&path);
                held.skills.insert(path, Arc::new(skill));
            }
            Err(reason) => {
                held.skills.remove(&path);
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
mod tests;
