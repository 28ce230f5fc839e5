//! A provider's invalidation state: dirty, generation, rescan, and which
//! instance is the live one. Shared by the provider handle and every
//! instance it starts (as their [`Upcalls`]); an instance's callbacks count
//! only while it is the live one, so a replaced or disposed instance can do
//! nothing (identity, not name).

use crate::sandbox::{InstanceId, Upcalls, WatchRequest, WatchTarget};
use crate::sync::lock;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A callback the registry hands in (where changes are told, what keeps
/// watches in step), so this layer names nothing above it.
pub(crate) struct Hook(Box<dyn Fn() + Send + Sync>);

impl Hook {
    /// Wraps `call`, run each time the provider has something to report.
    pub(crate) fn new(call: impl Fn() + Send + Sync + 'static) -> Hook {
        Hook(Box::new(call))
    }

    fn call(&self) {
        (self.0)()
    }
}

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}

/// What a provider signals to the registry.
#[derive(Debug)]
pub struct ProviderSignals {
    id: String,
    dirty: AtomicBool,
    rescan: AtomicBool,
    generation: AtomicU64,
    live: Mutex<Option<InstanceId>>,
    disposed: AtomicBool,
    notify: Mutex<Option<Hook>>,
    /// The live instance's watch requests (the last known ones while it
    /// restarts), readable without waiting for the instance.
    targets: Mutex<Vec<WatchTarget>>,
    /// Set when the live instance changed its watch requests during a
    /// call; the hook runs once that call has returned.
    watches_pending: AtomicBool,
    on_watches: Mutex<Option<Hook>>,
}

impl ProviderSignals {
    /// Signals for provider `id`, initially dirty (never observed).
    pub(crate) fn new(id: &str) -> Arc<Self> {
        Arc::new(ProviderSignals {
            id: id.to_string(),
            dirty: AtomicBool::new(true),
            rescan: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            live: Mutex::new(None),
            disposed: AtomicBool::new(false),
            notify: Mutex::new(None),
            targets: Mutex::new(Vec::new()),
            watches_pending: AtomicBool::new(false),
            on_watches: Mutex::new(None),
        })
    }

    /// Whether the provider must be asked again.
    pub fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    /// The current generation (bumped by every invalidation).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the provider was disposed (removed from its registry).
    pub fn is_disposed(&self) -> bool {
        self.disposed.load(Ordering::Acquire)
    }

    /// Marks the provider dirty from outside: the host cannot say what
    /// changed, so the next snapshot asks the provider to verify everything.
    pub(crate) fn invalidate(&self) {
        if self.is_disposed() {
            return;
        }
        self.rescan.store(true, Ordering::Release);
        self.changed();
    }

    /// Marks the provider dirty because it said so itself (it already knows
    /// what changed) and bumps its generation.
    fn changed(&self) {
        if self.is_disposed() {
            return;
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.dirty.store(true, Ordering::Release);
        self.send();
    }

    /// Only a message: listeners run on the registry's notifier thread,
    /// never inside a guest call.
    fn send(&self) {
        if let Some(notify) = lock(&self.notify).as_ref() {
            notify.call();
        }
    }

    /// Where change notifications go (the registry's notifier), or nowhere.
    pub(crate) fn set_notify(&self, notify: Option<Hook>) {
        *lock(&self.notify) = notify;
    }

    /// What keeps its watches in step (the registry's watcher), or nothing.
    pub(crate) fn set_on_watches(&self, hook: Option<Hook>) {
        *lock(&self.on_watches) = hook;
    }

    /// Runs the watches hook if the call that just returned changed the
    /// provider's watch requests. Called after the instance is released:
    /// installing watches walks folders, which must neither count against
    /// the guest's deadline nor hold the instance.
    pub(crate) fn settle_watches(&self) {
        if self.watches_pending.swap(false, Ordering::AcqRel)
            && let Some(hook) = lock(&self.on_watches).as_ref()
        {
            hook.call();
        }
    }

    /// Marks the provider dirty because its instance was replaced (the
    /// host's view of it is stale), without asking for a blind rescan.
    pub(crate) fn mark_stale(&self) {
        self.changed();
    }

    /// Marks the provider dirty because it faulted (outside a snapshot):
    /// listeners learn that its view must be asked again, incomplete.
    pub(crate) fn faulted(&self) {
        if self.is_disposed() {
            return;
        }
        self.dirty.store(true, Ordering::Release);
        self.send();
    }

    /// Keeps the provider dirty without counting an invalidation: an
    /// incomplete observation is asked again next time, but is not a change.
    pub(crate) fn retry_later(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// Clears the dirty mark before asking; returns the generation then and
    /// whether a rescan was requested.
    pub(crate) fn begin_observation(&self) -> (u64, bool) {
        self.dirty.store(false, Ordering::Release);
        let rescan = self.rescan.swap(false, Ordering::AcqRel);
        (self.generation(), rescan)
    }

    /// Makes `instance` the live one: only its callbacks count from now on.
    pub(crate) fn set_live(&self, instance: Option<InstanceId>) {
        *lock(&self.live) = instance;
    }

    fn is_live(&self, instance: InstanceId) -> bool {
        *lock(&self.live) == Some(instance)
    }

    /// Makes every later signal a no-op.
    pub(crate) fn dispose(&self) {
        self.disposed.store(true, Ordering::Release);
        self.set_live(None);
        self.set_notify(None);
        self.set_on_watches(None);
        lock(&self.targets).clear();
    }

    /// The folders to watch for the provider.
    pub(crate) fn watch_targets(&self) -> Vec<WatchTarget> {
        lock(&self.targets).clone()
    }

    /// The paths the provider asked to watch.
    pub(crate) fn watches(&self) -> BTreeMap<String, WatchRequest> {
        lock(&self.targets)
            .iter()
            .map(|t| (t.guest.clone(), WatchRequest { depth: t.depth }))
            .collect()
    }
}

impl Upcalls for ProviderSignals {
    fn provider_id(&self) -> &str {
        &self.id
    }

    fn invalidated(&self, instance: InstanceId) {
        if self.is_live(instance) {
            self.changed();
        }
    }

    fn watches_changed(&self, instance: InstanceId, targets: Vec<WatchTarget>) {
        if self.is_live(instance) && !self.is_disposed() {
            *lock(&self.targets) = targets;
            self.watches_pending.store(true, Ordering::Release);
        }
    }
}
