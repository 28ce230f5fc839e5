//! A registered provider: its component, grants and limits, its live
//! instance (restarted after a fault), what the host holds of its
//! observations, and its last complete view.
//!
//! - [`boundary`]: validation of everything a provider returns;
//! - `absorb`: applying an observation to what the host holds (pure);
//! - `incoming`: entries on their way in, a long answer's checked in two
//!   halves on the engine's workers;
//! - `ahead`: the entries a provider sends ahead of its answer
//!   (`emit-skills`), checked on the engine's workers while it scans;
//! - `lifecycle` / `health`: starting, replacing and restarting instances;
//! - `view` / `calls`: what the registry and the agent ask of it;
//! - [`direct`]: one instance driven call by call, for conformance checks;
//! - [`sources`]: the first-party sources (local roots, bundled, remote).

mod absorb;
mod ahead;
pub mod boundary;
mod calls;
pub mod direct;
mod health;
mod incoming;
mod lifecycle;
mod namespace;
mod observe;
mod signals;
pub mod sources;
mod spec;
mod view;

pub use boundary::Caps;
pub(crate) use signals::Hook;
pub use signals::ProviderSignals;
pub use spec::{ChangeKind, ProviderSpec};
pub use view::ProviderView;

use crate::model::Scope;
use crate::sandbox::{Instance, Refusals, SandboxEngine, WatchRequest, WatchTarget};
use crate::sync::lock;
use absorb::Held;
use health::Health;
use namespace::Namespace;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use view::Views;

/// Counters for tests and benchmarks.
#[derive(Debug, Default)]
pub struct ProviderStats {
    snapshots: AtomicU64,
    instantiations: AtomicU64,
    last_received: AtomicU64,
    last_received_ahead: AtomicU64,
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

    /// How many of those the provider sent ahead of its answer
    /// (`emit-skills`), while it was still scanning.
    pub fn last_received_ahead(&self) -> u64 {
        self.last_received_ahead.load(Ordering::Relaxed)
    }
}

/// A provider as the registry holds it.
pub struct Provider {
    spec: ProviderSpec,
    engine: SandboxEngine,
    namespace: Namespace,
    signals: Arc<ProviderSignals>,
    refusals: Refusals,
    instance: Mutex<Option<Instance>>,
    health: Mutex<Health>,
    held: Mutex<Held>,
    views: Mutex<Views>,
    /// When the registry first asked for its view, for the startup grace.
    first_asked: std::sync::OnceLock<std::time::Instant>,
    stats: ProviderStats,
}

impl Provider {
    /// A provider that will start its instance on first use.
    pub fn new(engine: &SandboxEngine, spec: ProviderSpec) -> Arc<Provider> {
        Arc::new(Provider {
            signals: ProviderSignals::new(&spec.id),
            namespace: Namespace(spec.namespace.clone()),
            refusals: Refusals::new(&spec.id),
            spec,
            engine: engine.clone(),
            instance: Mutex::new(None),
            health: Mutex::new(Health::default()),
            held: Mutex::new(Held::default()),
            views: Mutex::new(Views::default()),
            first_asked: std::sync::OnceLock::new(),
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
    pub fn signals(&self) -> &ProviderSignals {
        &self.signals
    }

    /// Marks it dirty: the next snapshot asks it again, to verify
    /// everything (the host cannot say what changed).
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

    /// Capabilities the provider tried to use and was refused, one line
    /// per kind (benign ones included, with how often they recurred).
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.list()
    }

    /// Each kind of refusal, with its first message and count.
    pub fn refusal_counts(&self) -> Vec<crate::sandbox::Refusal> {
        self.refusals.all()
    }

    /// The paths its live instance asked to watch (the last known ones
    /// while it restarts).
    pub fn watches(&self) -> BTreeMap<String, WatchRequest> {
        self.signals.watches()
    }

    /// The folders to watch for it. Read without waiting for its instance,
    /// which a slow call may hold for as long as its deadline.
    pub(crate) fn watch_targets(&self) -> Vec<WatchTarget> {
        self.signals.watch_targets()
    }

    /// Where diagnostics about the provider as a whole point.
    fn location(&self) -> String {
        self.spec
            .roots
            .first()
            .map(|r| r.display().to_string())
            .or_else(|| self.spec.virtual_roots.first().map(|v| v.shown.to_string()))
            .unwrap_or_else(|| self.spec.id.clone())
    }
}
