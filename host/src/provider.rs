//! A registered provider: its component, grants and limits, its live
//! instance (restarted after a fault), and its last complete view.

use crate::bindings::types::{self as wit, ProviderConfig};
use crate::boundary::{self, Caps, ProviderObservation};
use crate::capabilities::{Grants, VirtualRoot};
use crate::engine::{LoadedComponent, SandboxEngine};
use crate::error::{Error, ProviderErrorKind};
use crate::model::{Diagnostic, SkillDocument, SkillResource};
use crate::sandbox::{Fault, Instance, Limits, ProviderSignals, Refusals, WatchRequest};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub use crate::model::Scope;

/// Everything needed to run one provider.
#[derive(Clone)]
pub struct ProviderSpec {
    /// Unique id in the registry (e.g. `local:/home/me/.claude/skills`).
    pub id: String,
    /// Where its skills come from.
    pub scope: Scope,
    /// The compiled component.
    pub component: Arc<LoadedComponent>,
    /// Roots granted read-only, highest precedence first.
    pub roots: Vec<PathBuf>,
    /// Provider-specific settings passed to `init`.
    pub settings: Vec<(String, String)>,
    /// HTTP origins it may reach (`scheme://host:port`).
    pub origins: Vec<String>,
    /// Guest path prefixes that only name where its skills come from
    /// (`/remote` → the mirror's URL); nothing is opened there.
    pub virtual_roots: Vec<VirtualRoot>,
    /// Set for remote sources: its skills are listed as `namespace:name`,
    /// so they never shadow, nor are shadowed by, another source's (B6).
    pub namespace: Option<String>,
    /// How often the host asks it to look for changes itself (a remote
    /// index), while the registry is watching.
    pub poll: Option<std::time::Duration>,
    /// Memory and time limits.
    pub limits: Limits,
    /// Caps on what it may return.
    pub caps: Caps,
}

/// What a change event says happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Something appeared.
    Created,
    /// Something changed.
    Modified,
    /// Something went away.
    Removed,
    /// Track was lost: rescan.
    Rescan,
}

/// Counters for tests and benchmarks.
#[derive(Debug, Default)]
pub struct ProviderStats {
    snapshots: AtomicU64,
    instantiations: AtomicU64,
    last_received: AtomicU64,
}

impl ProviderStats {
    /// How many times `snapshot` was called on the guest.
    pub fn snapshots(&self) -> u64 {
        self.snapshots.load(Ordering::Relaxed)
    }

    /// How many instances were started.
    pub fn instantiations(&self) -> u64 {
        self.instantiations.load(Ordering::Relaxed)
    }

    /// How many skill entries crossed the boundary in the last observation
    /// (all of them for a complete one, only the changes for a delta).
    pub fn last_received(&self) -> u64 {
        self.last_received.load(Ordering::Relaxed)
    }
}

/// What the host holds of the live instance's observations, so the
/// provider can answer with changes only.
#[derive(Default)]
struct Held {
    /// The instance these observations came from.
    instance: u64,
    /// The last observation's epoch.
    epoch: Option<u64>,
    /// Valid skills by the provider's document path.
    skills: BTreeMap<String, Arc<crate::model::Skill>>,
    /// Entries refused at the boundary, by document path.
    rejected: BTreeMap<String, Diagnostic>,
}

/// Faults in a row and when the provider may start again (SPEC I1).
#[derive(Debug, Default)]
struct Health {
    faults_in_a_row: u32,
    restart_at: Option<std::time::Instant>,
    last: Option<Fault>,
}

/// A provider as the registry holds it.
pub struct Provider {
    spec: ProviderSpec,
    engine: SandboxEngine,
    signals: Arc<ProviderSignals>,
    instance: Mutex<Option<Instance>>,
    health: Mutex<Health>,
    refusals: Refusals,
    held: Mutex<Held>,
    last_complete: Mutex<Option<Arc<ProviderObservation>>>,
    view: Mutex<Option<Arc<ProviderObservation>>>,
    last_targets: Mutex<Vec<(String, PathBuf, u32)>>,
    stats: ProviderStats,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave them inconsistent
    // (each critical section is a single assignment), so poisoning is ignored.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Provider {
    /// A provider that will start its instance on first use.
    pub fn new(engine: &SandboxEngine, spec: ProviderSpec) -> Arc<Provider> {
        let signals = ProviderSignals::new(&spec.id);
        Arc::new(Provider {
            spec,
            engine: engine.clone(),
            signals,
            instance: Mutex::new(None),
            health: Mutex::new(Health::default()),
            refusals: Refusals::default(),
            held: Mutex::new(Held::default()),
            last_complete: Mutex::new(None),
            view: Mutex::new(None),
            last_targets: Mutex::new(Vec::new()),
            stats: ProviderStats::default(),
        })
    }

    /// The provider's id.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// The roots it was granted.
    pub fn roots(&self) -> &[PathBuf] {
        &self.spec.roots
    }

    /// Where its skills come from.
    pub fn scope(&self) -> Scope {
        self.spec.scope
    }

    /// Call counters.
    pub fn stats(&self) -> &ProviderStats {
        &self.stats
    }

    /// Its invalidation state.
    pub fn signals(&self) -> &Arc<ProviderSignals> {
        &self.signals
    }

    /// Marks it dirty: the next snapshot asks it again.
    pub fn invalidate(&self) {
        self.signals.invalidate();
    }

    /// Stops it: drops the instance; later callbacks do nothing.
    pub fn dispose(&self) {
        self.signals.dispose();
        *lock(&self.instance) = None;
    }

    /// Its namespace, when its skills are listed as `namespace:name`.
    pub fn namespace(&self) -> Option<&str> {
        self.spec.namespace.as_deref()
    }

    /// How often it is polled while the registry watches.
    pub fn poll_interval(&self) -> Option<std::time::Duration> {
        self.spec.poll
    }

    /// Where diagnostics about the provider as a whole point.
    fn location(&self) -> String {
        self.spec
            .roots
            .first()
            .map(|r| r.display().to_string())
            .or_else(|| {
                self.spec
                    .virtual_roots
                    .first()
                    .map(|v| v.shown.display().to_string())
            })
            .unwrap_or_else(|| self.spec.id.clone())
    }

    /// The name the guest knows a skill by: without the namespace.
    fn guest_name<'a>(&self, name: &'a str) -> Result<&'a str, Error> {
        let Some(namespace) = &self.spec.namespace else {
            return Ok(name);
        };
        name.strip_prefix(namespace.as_str())
            .and_then(|rest| rest.strip_prefix(':'))
            .ok_or_else(|| Error::Provider {
                provider: self.id().to_string(),
                kind: ProviderErrorKind::NotFound,
                message: format!("{name:?} is not in the {namespace:?} namespace"),
            })
    }

    /// Puts a skill (and its aliases) in the provider's namespace.
    fn namespaced(&self, skill: &mut crate::model::Skill) {
        skill.scope = self.spec.scope;
        if let Some(namespace) = &self.spec.namespace {
            let f = &mut skill.frontmatter;
            f.name = format!("{namespace}:{}", f.name);
            for alias in &mut f.aliases {
                *alias = format!("{namespace}:{alias}");
            }
        }
    }

    /// Runs `f` on the live instance, starting one if needed (or if a root
    /// appeared or vanished since the grant). A fault kills the instance; the
    /// next call starts a fresh one from the pre-linked component.
    fn with_instance<R>(
        &self,
        f: impl FnOnce(&mut Instance) -> Result<R, Fault>,
    ) -> Result<(R, Arc<Grants>), Fault> {
        let mut slot = lock(&self.instance);
        if slot.as_ref().is_some_and(|i| !i.grants().is_current()) {
            // A root appeared or vanished: grant again. What the host holds
            // came from the old grant, so the provider must be asked anew.
            *slot = None;
            self.signals.mark_stale();
        }
        if slot.is_none() {
            // After a fault, wait out the backoff before starting again.
            {
                let health = lock(&self.health);
                if let (Some(at), Some(last)) = (health.restart_at, &health.last)
                    && std::time::Instant::now() < at
                {
                    return Err(Fault {
                        kind: last.kind.clone(),
                        message: format!(
                            "{} (fault {} in a row; restarting in {} ms)",
                            last.message,
                            health.faults_in_a_row,
                            at.saturating_duration_since(std::time::Instant::now())
                                .as_millis()
                        ),
                    });
                }
            }
            let grants = Arc::new(
                Grants::for_roots(&self.spec.roots)
                    .with_virtual(&self.spec.virtual_roots)
                    .with_origins(&self.spec.origins),
            );
            let config = ProviderConfig {
                id: self.spec.id.clone(),
                roots: grants.roots.iter().map(|r| r.guest.clone()).collect(),
                settings: self.spec.settings.clone(),
            };
            self.stats.instantiations.fetch_add(1, Ordering::Relaxed);
            match Instance::start(
                &self.engine,
                &self.spec.component,
                grants,
                self.signals.clone(),
                self.spec.limits,
                self.refusals.clone(),
                &config,
            ) {
                Ok(instance) => *slot = Some(instance),
                Err(fault) => {
                    self.faulted_now(&fault);
                    return Err(fault);
                }
            }
        }
        let Some(instance) = slot.as_mut() else {
            unreachable!("an instance was just started")
        };
        let grants = instance.grants().clone();
        match f(instance) {
            Ok(r) => {
                let mut health = lock(&self.health);
                health.faults_in_a_row = 0;
                health.restart_at = None;
                Ok((r, grants))
            }
            Err(fault) => {
                tracing::warn!(provider = self.id(), %fault, "provider faulted; its instance is dropped");
                *slot = None;
                self.faulted_now(&fault);
                Err(fault)
            }
        }
    }

    /// Records a fault: the next start waits, longer with each fault in a row.
    fn faulted_now(&self, fault: &Fault) {
        let limits = &self.spec.limits;
        let mut health = lock(&self.health);
        health.faults_in_a_row = health.faults_in_a_row.saturating_add(1);
        let doubling = 2u32.saturating_pow(health.faults_in_a_row.saturating_sub(1).min(20));
        let wait = limits
            .restart_initial
            .saturating_mul(doubling)
            .min(limits.restart_max);
        health.restart_at = Some(std::time::Instant::now() + wait);
        health.last = Some(fault.clone());
        drop(health);
        // Its view turns incomplete: the registry must ask again.
        self.signals.faulted();
    }

    /// Capabilities the provider tried to use and was refused.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.list()
    }

    /// The provider's current view, asking it only when dirty (SPEC C2).
    /// Returns the view and whether the provider was invalidated while it
    /// was being asked (SPEC C3: the caller should retry).
    pub fn view(&self) -> (Arc<ProviderObservation>, bool) {
        if !self.signals.is_dirty()
            && let Some(view) = lock(&self.view).clone()
        {
            return (view, false);
        }
        let (generation, rescan) = self.signals.begin_observation();
        self.stats.snapshots.fetch_add(1, Ordering::Relaxed);
        let mut held = lock(&self.held);
        let answer = self.with_instance(|i| {
            if held.instance != i.id() {
                *held = Held {
                    instance: i.id(),
                    ..Held::default()
                };
            }
            let request = wit::SnapshotRequest {
                known: held.epoch,
                rescan,
            };
            i.call(|b, s| b.skillhost_provider_provider().call_snapshot(s, request))
        });
        let fresh = match answer {
            Ok((obs, grants)) => self.absorb(&mut held, obs, &grants),
            Err(fault) => {
                *held = Held::default();
                ProviderObservation {
                    skills: Vec::new(),
                    diagnostics: vec![self.fault_diagnostic(&fault)],
                    complete: false,
                }
            }
        };
        drop(held);
        let view = if fresh.complete {
            let fresh = Arc::new(fresh);
            *lock(&self.last_complete) = Some(fresh.clone());
            fresh
        } else {
            // SPEC C1 / I1: keep showing the last complete view, flagged
            // incomplete, and ask again next time.
            self.signals.retry_later();
            let kept = lock(&self.last_complete).as_ref().map(|v| v.skills.clone());
            Arc::new(ProviderObservation {
                skills: kept.unwrap_or_default(),
                diagnostics: fresh.diagnostics,
                complete: false,
            })
        };
        let refusals = self.refusals.list();
        let view = if refusals.is_empty() {
            view
        } else {
            let mut with = (*view).clone();
            with.diagnostics.extend(refusals.into_iter().map(|message| {
                let mut d = Diagnostic::warning(
                    self.location(),
                    format!("provider {} {message}", self.id()),
                )
                .from_source(self.id());
                d.field = Some("capability".to_string());
                d
            }));
            Arc::new(with)
        };
        *lock(&self.view) = Some(view.clone());
        (view, self.signals.generation() != generation)
    }

    /// Applies an observation (whole or changes) to what the host holds,
    /// validating every new entry at the boundary.
    fn absorb(
        &self,
        held: &mut Held,
        obs: wit::Observation,
        grants: &Grants,
    ) -> ProviderObservation {
        let caps = &self.spec.caps;
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
                *held = Held {
                    instance: held.instance,
                    ..Held::default()
                };
                return ProviderObservation {
                    skills: Vec::new(),
                    diagnostics: vec![
                        Diagnostic::error(self.location(), message).from_source(self.id()),
                    ],
                    complete: false,
                };
            }
        }
        self.stats
            .last_received
            .store(obs.skills.len() as u64, Ordering::Relaxed);
        let mut overflow = 0usize;
        for entry in obs.skills {
            if held.skills.len() >= caps.max_skills && !held.skills.contains_key(&entry.path) {
                overflow += 1;
                continue;
            }
            let path = entry.path.clone();
            match boundary::skill(entry, grants, self.id(), caps) {
                Ok(mut skill) => {
                    self.namespaced(&mut skill);
                    held.rejected.remove(&path);
                    held.skills.insert(path, Arc::new(skill));
                }
                Err(reason) => {
                    held.skills.remove(&path);
                    let d = boundary::rejected(&path, grants, self.id(), &reason);
                    held.rejected.insert(path, d);
                }
            }
        }
        held.epoch = Some(obs.epoch);
        let mut diagnostics: Vec<Diagnostic> = held.rejected.values().cloned().collect();
        if overflow > 0 {
            diagnostics.push(
                Diagnostic::error(
                    self.location(),
                    format!(
                        "returned more than {} skills; {overflow} were dropped",
                        caps.max_skills
                    ),
                )
                .from_source(self.id()),
            );
        }
        diagnostics.extend(boundary::diagnostics(
            obs.diagnostics,
            grants,
            self.id(),
            caps,
        ));
        ProviderObservation {
            skills: held.skills.values().cloned().collect(),
            diagnostics,
            complete: obs.complete,
        }
    }

    fn fault_diagnostic(&self, fault: &Fault) -> Diagnostic {
        let mut d = Diagnostic::error(
            self.location(),
            format!(
                "provider {} failed ({}): {}",
                self.id(),
                fault.kind.as_str(),
                fault.message
            ),
        )
        .from_source(self.id());
        d.field = Some(fault.kind.as_str().to_string());
        d
    }

    fn refused(&self, e: wit::ProviderError) -> Error {
        let (kind, message) = match e {
            wit::ProviderError::NotFound(m) => (ProviderErrorKind::NotFound, m),
            wit::ProviderError::NameMismatch(m) => (ProviderErrorKind::NameMismatch, m),
            wit::ProviderError::Invalid(m) => (ProviderErrorKind::Invalid, m),
            wit::ProviderError::Io(m) => (ProviderErrorKind::Io, m),
            wit::ProviderError::Unsupported(m) => (ProviderErrorKind::Unsupported, m),
        };
        if matches!(
            kind,
            ProviderErrorKind::NotFound | ProviderErrorKind::NameMismatch
        ) {
            // The catalog named something the source no longer has (SPEC C7).
            self.invalidate();
        }
        let message = crate::host_api::clip(&message, 2048).to_string();
        Error::Provider {
            provider: self.id().to_string(),
            kind,
            message,
        }
    }

    fn faulted(&self, fault: Fault) -> Error {
        Error::Fault {
            provider: self.id().to_string(),
            fault,
        }
    }

    /// Reads the skill `name` again and returns it with its body (SPEC C8).
    pub fn load(&self, name: &str) -> Result<SkillDocument, Error> {
        let guest_name = self.guest_name(name)?;
        let (answer, grants) = self
            .with_instance(|i| {
                i.call(|b, s| b.skillhost_provider_provider().call_load(s, guest_name))
            })
            .map_err(|f| self.faulted(f))?;
        let doc = answer.map_err(|e| self.refused(e))?;
        let mut doc =
            boundary::document(doc, &grants, self.id(), &self.spec.caps).map_err(|message| {
                Error::Boundary {
                    provider: self.id().to_string(),
                    message,
                }
            })?;
        self.namespaced(&mut doc.skill);
        if doc.skill.name() != name {
            self.invalidate();
            return Err(Error::Provider {
                provider: self.id().to_string(),
                kind: ProviderErrorKind::NameMismatch,
                message: format!("asked for {name:?}, got {:?}", doc.skill.name()),
            });
        }
        Ok(doc)
    }

    /// Lists the files of skill `name`.
    pub fn list_resources(&self, name: &str) -> Result<Vec<SkillResource>, Error> {
        let name = self.guest_name(name)?;
        let (answer, _) = self
            .with_instance(|i| {
                i.call(|b, s| b.skillhost_provider_provider().call_list_resources(s, name))
            })
            .map_err(|f| self.faulted(f))?;
        let list = answer.map_err(|e| self.refused(e))?;
        boundary::resources(list, &self.spec.caps).map_err(|message| Error::Boundary {
            provider: self.id().to_string(),
            message,
        })
    }

    /// Reads one file of skill `name`.
    pub fn read_resource(&self, name: &str, path: &str) -> Result<Vec<u8>, Error> {
        let name = self.guest_name(name)?;
        let (answer, _) = self
            .with_instance(|i| {
                i.call(|b, s| {
                    b.skillhost_provider_provider()
                        .call_read_resource(s, name, path)
                })
            })
            .map_err(|f| self.faulted(f))?;
        answer.map_err(|e| self.refused(e))
    }

    /// Delivers changes seen at host paths; paths outside the grants are dropped.
    pub fn on_change(&self, events: &[(PathBuf, ChangeKind)]) -> Result<(), Error> {
        self.with_instance(|i| {
            let events: Vec<wit::ChangeEvent> = events
                .iter()
                .filter_map(|(path, kind)| {
                    Some(wit::ChangeEvent {
                        path: i.grants().to_guest(path)?,
                        kind: match kind {
                            ChangeKind::Created => wit::ChangeKind::Created,
                            ChangeKind::Modified => wit::ChangeKind::Modified,
                            ChangeKind::Removed => wit::ChangeKind::Removed,
                            ChangeKind::Rescan => wit::ChangeKind::Rescan,
                        },
                    })
                })
                .collect();
            if events.is_empty() {
                return Ok(());
            }
            i.call(|b, s| b.skillhost_provider_provider().call_on_change(s, &events))
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }

    /// Asks a provider that is polled (a remote index) to look for changes
    /// now; it calls `invalidate-provider` if it found some.
    pub fn poll(&self) -> Result<(), Error> {
        self.with_instance(|i| {
            let Some(root) = i.grants().virtual_roots.first().map(|v| v.guest.clone()) else {
                return Ok(());
            };
            let events = [wit::ChangeEvent {
                path: root,
                kind: wit::ChangeKind::Rescan,
            }];
            i.call(|b, s| b.skillhost_provider_provider().call_on_change(s, &events))
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }

    /// Tells the provider the agent itself wrote `paths` (SPEC D5).
    pub fn observe(&self, paths: &[PathBuf]) -> Result<(), Error> {
        self.with_instance(|i| {
            let guest: Vec<String> = paths
                .iter()
                .filter_map(|p| i.grants().to_guest(p))
                .collect();
            if guest.is_empty() {
                return Ok(());
            }
            i.call(|b, s| b.skillhost_provider_provider().call_observe(s, &guest))
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }

    /// What the live instance asked to watch (empty when none is running).
    pub fn watches(&self) -> BTreeMap<String, WatchRequest> {
        lock(&self.instance)
            .as_ref()
            .map(|i| i.watches().clone())
            .unwrap_or_default()
    }

    /// The folders to watch for it, as (guest path, host path, depth): the
    /// live instance's requests, or the last known ones while it restarts.
    pub fn watch_targets(&self) -> Vec<(String, PathBuf, u32)> {
        let slot = lock(&self.instance);
        let Some(instance) = slot.as_ref() else {
            return lock(&self.last_targets).clone();
        };
        let targets: Vec<(String, PathBuf, u32)> = instance
            .watches()
            .iter()
            .filter_map(|(guest, request)| {
                Some((
                    guest.clone(),
                    instance.grants().to_host(guest)?,
                    request.depth,
                ))
            })
            .collect();
        *lock(&self.last_targets) = targets.clone();
        targets
    }
}
