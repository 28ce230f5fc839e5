//! A provider instance driven one call at a time, with nothing in between:
//! no registry, no restart after a fault, no view kept. It is for tools
//! that check a component against the contract (the conformance kit):
//! each answer comes back as the provider gave it — a delta stays a delta
//! — with every entry's verdict at the [`boundary`], and what the instance
//! did besides answering (invalidations, watch requests, refused
//! capabilities, memory) is readable between calls.
//!
//! It is started exactly as the registry starts a provider (the same
//! grants, limits, `init` and engine), so what it shows is what the host
//! would get.

use super::boundary::{self, Caps};
use super::calls::{guest_events, oversized_resource, provider_error, refused_range};
use super::lifecycle::granted;
use super::spec::{ChangeKind, ProviderSpec};
use crate::error::Error;
use crate::model::{Diagnostic, Skill, SkillDocument, SkillResource};
use crate::sandbox::contract as wit;
use crate::sandbox::{
    Fault, FaultKind, Grants, Instance, InstanceId, Refusals, SandboxEngine, Start, Upcalls,
    WatchTarget,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One path the provider asked the host to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watch {
    /// The guest path asked for.
    pub guest: String,
    /// The host folder behind it.
    pub host: PathBuf,
    /// Levels of subfolders watched too (0: the folder's own entries).
    pub depth: u32,
}

impl Watch {
    /// Whether a change at host path `path` reaches the provider through
    /// this watch: the folder itself, or an entry at most `depth + 1`
    /// levels below it (as the host's watcher delivers them).
    pub fn covers(&self, path: &Path) -> bool {
        path.strip_prefix(&self.host)
            .is_ok_and(|below| below.components().count() <= self.depth as usize + 1)
    }
}

/// One skill entry of an observation, and what the boundary made of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedEntry {
    /// The document's guest path, as the provider sent it (the key deltas
    /// refer to).
    pub path: String,
    /// Roughly what the host would hold for it, in bytes.
    pub bytes: usize,
    /// The skill, or why the host refuses the entry.
    pub verdict: Result<Skill, String>,
    /// What the field rules warned about its frontmatter (a value of the
    /// wrong shape, a missing description), as the catalog shows it.
    pub warnings: Vec<Diagnostic>,
}

/// An observation exactly as the provider answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// Its epoch.
    pub epoch: u64,
    /// `None`: `entries` is the complete list; `Some(e)`: only the changes
    /// since observation `e`.
    pub base: Option<u64>,
    /// The entries sent, in the provider's order (those sent ahead with
    /// `emit-skills` first), up to the host's cap on skills (as the
    /// registry, the kit keeps no more).
    pub entries: Vec<ObservedEntry>,
    /// Entries sent beyond that cap, dropped unexamined.
    pub dropped: usize,
    /// Documents (entry paths) gone since `base`.
    pub removed: Vec<String>,
    /// Its diagnostics, translated as the host shows them.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether every source could be read.
    pub complete: bool,
}

/// The entries a provider sent ahead of its answer (`emit-skills`), kept
/// up to the cap on skills.
#[derive(Default)]
struct SentAhead {
    entries: Vec<wit::SkillEntry>,
    dropped: usize,
}

/// What the instance reports upward, recorded.
#[derive(Debug)]
struct Recorder {
    id: String,
    invalidations: AtomicU64,
    watches: Mutex<Vec<WatchTarget>>,
}

impl Upcalls for Recorder {
    fn provider_id(&self) -> &str {
        &self.id
    }

    fn invalidated(&self, _instance: InstanceId) {
        self.invalidations.fetch_add(1, Ordering::Relaxed);
    }

    fn watches_changed(&self, _instance: InstanceId, targets: Vec<WatchTarget>) {
        *crate::sync::lock(&self.watches) = targets;
    }
}

/// A provider instance driven call by call (see the module's docs).
pub struct DirectInstance {
    spec: ProviderSpec,
    grants: Arc<Grants>,
    instance: Option<Instance>,
    recorder: Arc<Recorder>,
    refusals: Refusals,
}

impl DirectInstance {
    /// Starts an instance of `spec` as the registry would and calls its
    /// `init`; a fault or refusal there is the error.
    pub fn start(engine: &SandboxEngine, spec: ProviderSpec) -> Result<DirectInstance, Error> {
        let (grants, config, listed) = granted(&spec);
        let recorder = Arc::new(Recorder {
            id: spec.id.clone(),
            invalidations: AtomicU64::new(0),
            watches: Mutex::new(Vec::new()),
        });
        let refusals = Refusals::new(&spec.id);
        let instance = Instance::start(Start {
            engine,
            component: &spec.component,
            grants: grants.clone(),
            limits: spec.limits,
            refusals: refusals.clone(),
            upcalls: recorder.clone(),
            id: InstanceId::next(),
            config: Some(&config),
            listed,
        })
        .map_err(|fault| Error::Fault {
            provider: spec.id.clone(),
            fault,
        })?;
        Ok(DirectInstance {
            spec,
            grants,
            instance: Some(instance),
            recorder,
            refusals,
        })
    }

    /// Runs one export; a fault kills the instance for good.
    fn call<R>(&mut self, f: impl FnOnce(&mut Instance) -> Result<R, Fault>) -> Result<R, Error> {
        let provider = self.spec.id.clone();
        let Some(instance) = self.instance.as_mut() else {
            return Err(Error::Fault {
                provider,
                fault: Fault::new(
                    FaultKind::Trap,
                    "the instance faulted in an earlier call and is dead",
                ),
            });
        };
        f(instance).map_err(|fault| {
            self.instance = None;
            Error::Fault { provider, fault }
        })
    }

    fn boundary_error(&self, message: String) -> Error {
        Error::Boundary {
            provider: self.spec.id.clone(),
            message,
        }
    }

    /// Calls `snapshot` with `known` and `rescan` and returns the answer
    /// with each entry's verdict at the boundary.
    pub fn snapshot(&mut self, known: Option<u64>, rescan: bool) -> Result<Observed, Error> {
        let request = wit::SnapshotRequest { known, rescan };
        let max = self.spec.caps.max_skills;
        let ahead = Arc::new(Mutex::new(SentAhead::default()));
        let sink = {
            let ahead = ahead.clone();
            Box::new(move |batch: Vec<wit::SkillEntry>| {
                let mut ahead = super::lock(&ahead);
                let room = max.saturating_sub(ahead.entries.len());
                ahead.dropped += batch.len().saturating_sub(room);
                ahead.entries.extend(batch.into_iter().take(room));
            })
        };
        let obs = self.call(|i| i.snapshot(request, sink))?;
        let SentAhead {
            entries: mut skills,
            dropped: dropped_ahead,
        } = std::mem::take(&mut *super::lock(&ahead));
        // What was sent ahead leads the answer's list, as the registry takes it.
        skills.extend(obs.skills);
        let (grants, id, caps) = (&self.grants, self.spec.id.as_str(), &self.spec.caps);
        let dropped = dropped_ahead + skills.len().saturating_sub(caps.max_skills);
        let entries = skills
            .into_iter()
            .take(caps.max_skills)
            .map(|entry| {
                let path = entry.path.clone();
                let bytes = boundary::entry_bytes(&entry);
                let (verdict, warnings) = match boundary::skill(entry, grants, id, caps) {
                    Ok(checked) => (Ok(checked.skill), checked.warnings),
                    Err(reason) => (Err(reason), Vec::new()),
                };
                ObservedEntry {
                    path,
                    bytes,
                    verdict,
                    warnings,
                }
            })
            .collect();
        Ok(Observed {
            epoch: obs.epoch,
            base: obs.base,
            entries,
            removed: obs.removed,
            dropped,
            diagnostics: boundary::diagnostics(obs.diagnostics, grants, id, caps),
            complete: obs.complete,
        })
    }

    /// Calls `load`; the document is checked at the boundary (its name is
    /// not compared with `name`: that is the caller's check).
    pub fn load(&mut self, name: &str) -> Result<SkillDocument, Error> {
        let answer = self.call(|i| i.load(name))?;
        let doc = answer.map_err(|e| provider_error(&self.spec.id, e))?;
        boundary::document(doc, &self.grants, &self.spec.id, &self.spec.caps)
            .map_err(|m| self.boundary_error(m))
    }

    /// Calls `list-resources`; the listing is checked at the boundary.
    pub fn list_resources(&mut self, name: &str) -> Result<Vec<SkillResource>, Error> {
        let answer = self.call(|i| i.list_resources(name))?;
        let list = answer.map_err(|e| provider_error(&self.spec.id, e))?;
        boundary::resources(list, &self.spec.caps).map_err(|m| self.boundary_error(m))
    }

    /// Calls `read-resource`; the bytes are held to the per-file cap.
    pub fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, Error> {
        let answer = self.call(|i| i.read_resource(name, path))?;
        let bytes = answer.map_err(|e| provider_error(&self.spec.id, e))?;
        match oversized_resource(path, &bytes, &self.spec.caps) {
            Some(message) => Err(self.boundary_error(message)),
            None => Ok(bytes),
        }
    }

    /// Calls `read-resource-range`; the bytes are held to the range asked
    /// for and the per-file cap.
    pub fn read_resource_range(
        &mut self,
        name: &str,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, Error> {
        let answer = self.call(|i| i.read_resource_range(name, path, offset, len))?;
        let bytes = answer.map_err(|e| provider_error(&self.spec.id, e))?;
        match refused_range(path, &bytes, len, &self.spec.caps) {
            Some(message) => Err(self.boundary_error(message)),
            None => Ok(bytes),
        }
    }

    /// Delivers changes seen at host paths, as the registry's watcher
    /// would; paths outside the grants are dropped. Returns how many were
    /// delivered (none: the export is not called).
    pub fn on_change(&mut self, events: &[(PathBuf, ChangeKind)]) -> Result<usize, Error> {
        let events = guest_events(&self.grants, events);
        if events.is_empty() {
            return Ok(0);
        }
        let delivered = events.len();
        self.call(|i| i.on_change(&events))?;
        Ok(delivered)
    }

    /// Tells the provider the agent wrote these host paths (those outside
    /// the grants are dropped).
    pub fn observe(&mut self, paths: &[PathBuf]) -> Result<(), Error> {
        let guest: Vec<String> = paths
            .iter()
            .filter_map(|p| self.grants.to_guest(p))
            .collect();
        if guest.is_empty() {
            return Ok(());
        }
        self.call(|i| i.observe(&guest))
    }

    /// Calls `observe` with guest paths as given, whether or not they lie
    /// in a grant (a provider that reads no folder is still asked, with
    /// paths of its own namespace).
    pub fn observe_guest(&mut self, paths: &[String]) -> Result<(), Error> {
        self.call(|i| i.observe(paths))
    }

    /// How many times the instance called `invalidate-provider` (within
    /// its rate; a flood faults the call instead).
    pub fn invalidations(&self) -> u64 {
        self.recorder.invalidations.load(Ordering::Relaxed)
    }

    /// The paths it currently asks to watch.
    pub fn watches(&self) -> Vec<Watch> {
        crate::sync::lock(&self.recorder.watches)
            .iter()
            .map(|t| Watch {
                guest: t.guest.clone(),
                host: t.host.clone(),
                depth: t.depth,
            })
            .collect()
    }

    /// Capabilities it tried to use and was refused, one line per kind.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.list()
    }

    /// Each kind of refusal, with its first message and count.
    pub fn refusal_counts(&self) -> Vec<crate::sandbox::Refusal> {
        self.refusals.all()
    }

    /// Bytes of linear memory it has grown to (none once it is dead).
    pub fn memory_bytes(&self) -> Option<usize> {
        self.instance.as_ref().map(Instance::memory_bytes)
    }

    /// Whether it can still be called (no call has faulted).
    pub fn is_alive(&self) -> bool {
        self.instance.is_some()
    }

    /// The guest paths of its granted roots, highest precedence first.
    pub fn guest_roots(&self) -> Vec<String> {
        self.grants.roots.iter().map(|r| r.guest.clone()).collect()
    }

    /// The guest path of a host path inside its grants.
    pub fn guest_path(&self, host: &Path) -> Option<String> {
        self.grants.to_guest(host)
    }

    /// The caps its answers are held to.
    pub fn caps(&self) -> &Caps {
        &self.spec.caps
    }

    /// The specification it was started from.
    pub fn spec(&self) -> &ProviderSpec {
        &self.spec
    }
}

#[cfg(test)]
#[path = "direct_tests.rs"]
mod tests;
