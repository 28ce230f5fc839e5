//! The registry: providers in precedence order, the merged catalog with its
//! completeness bit, exact per-provider invalidation, change listeners, and
//! the host watcher and poller that serve its providers.
//!
//! Only complete catalogs are cached, and a clean provider is never asked
//! again: invalidating one provider re-asks exactly that one. A provider
//! invalidated while a snapshot is being made makes the snapshot run again
//! (a bounded number of times). Every change reaches listeners on one
//! channel ([`Change`]): which providers the catalog may have changed in,
//! and which files the watcher delivered.

mod changes;
mod listeners;
// Public only for the bench crate, which merges views it made natively.
#[cfg(feature = "bench-internals")]
pub mod merge;
#[cfg(not(feature = "bench-internals"))]
mod merge;
mod poll;
pub mod watch;

pub use changes::Change;
pub use listeners::Subscription;
#[cfg(feature = "bench-internals")]
pub use merge::merge;

use crate::error::Error;
use crate::model::{Catalog, Diagnostic, Scope, Skill, SkillDocument, SkillResource};
use crate::paths::canonical_or_lexical;
use crate::provider::{Hook, Provider, ProviderView};
use crate::sync::lock;
use changes::Notice;
use listeners::Listeners;
use poll::Poller;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};
use watch::{WatchOptions, Watcher};

/// How many times discovery is repeated when a provider or the registry
/// changes while it runs, before a possibly stale result is returned.
pub const MAX_DISCOVERY_RETRIES: usize = 3;

/// Providers in precedence order (first wins) and the catalog they make.
pub struct Registry {
    providers: Arc<RwLock<Vec<Arc<Provider>>>>,
    generation: AtomicU64,
    cached: Mutex<Option<(u64, Arc<Catalog>)>>,
    listeners: Arc<Listeners<Change>>,
    notify: Mutex<Option<Sender<Notice>>>,
    /// The watcher, and this registry's subscription to its deliveries.
    watcher: Mutex<Option<(Arc<Watcher>, Subscription)>>,
    poller: Mutex<Option<Poller>>,
    reported: Mutex<Vec<Diagnostic>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

impl Registry {
    /// An empty registry, with its notifier thread.
    pub fn new() -> Self {
        let listeners = Arc::new(Listeners::default());
        let notify = changes::start_notifier(&listeners);
        Registry {
            providers: Arc::new(RwLock::new(Vec::new())),
            generation: AtomicU64::new(0),
            cached: Mutex::new(None),
            listeners,
            notify: Mutex::new(notify),
            watcher: Mutex::new(None),
            poller: Mutex::new(None),
            reported: Mutex::new(Vec::new()),
        }
    }

    /// Adds a diagnostic of the host's own (a provider that could not be
    /// started, say) to every catalog from now on.
    pub fn report(&self, diagnostic: Diagnostic) {
        lock(&self.reported).push(diagnostic);
        self.changed();
    }

    /// Calls `listener` with every [`Change`] from now on, until the
    /// returned subscription is dropped. It runs on the registry's notifier
    /// thread, one change at a time and never inside a provider call; a
    /// listener that wants the catalog takes a snapshot.
    pub fn subscribe(&self, listener: impl Fn(&Change) + Send + Sync + 'static) -> Subscription {
        self.listeners.subscribe(listener)
    }

    /// Starts watching on behalf of the providers, with a watcher of its
    /// own: from now on their watches follow their requests, installed as
    /// each provider call that changed them returns.
    pub fn watch(&self, options: WatchOptions) -> Result<(), Error> {
        self.watch_with(Arc::new(Watcher::start(options)?));
        Ok(())
    }

    /// Watches through a watcher shared with other registries (one per
    /// project, say), so the bound on project watchers holds across them.
    /// Providers that must be polled (remote indexes) are polled from now on.
    pub fn watch_with(&self, watcher: Arc<Watcher>) {
        let deliveries = self.forward_deliveries(&watcher);
        if let Some((old, _)) = lock(&self.watcher).replace((watcher.clone(), deliveries)) {
            for provider in self.providers() {
                old.forget(&provider);
            }
        }
        for provider in self.providers() {
            attach(&watcher, &provider);
        }
        let mut poller = lock(&self.poller);
        if poller.is_none() {
            match Poller::start() {
                Ok(started) => {
                    for provider in self.providers() {
                        if let Some(every) = provider.poll_interval() {
                            started.add(&provider, every);
                        }
                    }
                    *poller = Some(started);
                }
                Err(e) => self.report(Diagnostic::error(
                    "skillhost",
                    format!(
                        "cannot start polling remote sources: {e}; their changes will be missed"
                    ),
                )),
            }
        }
    }

    /// Passes what `watcher` delivers to this registry's own providers on
    /// to its listeners, as [`Change::Files`]; a shared watcher's other
    /// registries hear of theirs.
    fn forward_deliveries(&self, watcher: &Watcher) -> Subscription {
        let providers = Arc::downgrade(&self.providers);
        let notify = lock(&self.notify).clone();
        watcher.on_delivery_to(move |delivery| {
            let Some(providers) = providers.upgrade() else {
                return;
            };
            let ours = crate::sync::read(&providers)
                .iter()
                .any(|p| Arc::ptr_eq(p, &delivery.provider));
            if ours && let Some(tx) = &notify {
                let _ = tx.send(Notice::Files(
                    delivery.provider.id().to_string(),
                    delivery.changes.clone(),
                ));
            }
        })
    }

    /// The watcher, when watching.
    pub fn watcher(&self) -> Option<Arc<Watcher>> {
        lock(&self.watcher).as_ref().map(|(w, _)| w.clone())
    }

    /// Adds a provider below every provider already registered. Ids are
    /// unique: a provider whose id is taken is refused (two sources that
    /// would share an id need distinct labels or ids).
    pub fn add(&self, provider: Arc<Provider>) -> Result<(), Error> {
        self.insert(provider, Vec::len)
    }

    /// Adds a provider at the place `at` picks among those registered.
    fn insert(
        &self,
        provider: Arc<Provider>,
        at: impl FnOnce(&Vec<Arc<Provider>>) -> usize,
    ) -> Result<(), Error> {
        {
            let mut providers = self.write();
            if providers.iter().any(|p| p.id() == provider.id()) {
                return Err(Error::DuplicateProvider {
                    id: provider.id().to_string(),
                });
            }
            let notify = lock(&self.notify).clone().map(|tx| {
                let id = provider.id().to_string();
                Hook::new(move || {
                    let _ = tx.send(Notice::Provider(id.clone()));
                })
            });
            provider.signals().set_notify(notify);
            let index = at(&providers).min(providers.len());
            providers.insert(index, provider.clone());
        }
        if let (Some(poller), Some(every)) = (lock(&self.poller).as_ref(), provider.poll_interval())
        {
            poller.add(&provider, every);
        }
        if let Some(watcher) = self.watcher() {
            attach(&watcher, &provider);
        }
        self.changed();
        Ok(())
    }

    /// Marks this registry's providers in use now, for the bound a shared
    /// watcher keeps on project watchers (the least recently used project
    /// loses its watches first). A provider whose watches had been evicted
    /// is watched again and rescans, since changes may have been missed
    /// meanwhile. A session calls this each turn; a snapshot never does,
    /// because reading the catalog must not change what is watched.
    /// Returns whether any provider was watched again.
    pub fn resume_watching(&self) -> bool {
        let Some(watcher) = self.watcher() else {
            return false;
        };
        let mut resumed = false;
        for provider in self.providers() {
            if watcher.observe(&provider, provider.scope() == Scope::Project) {
                provider.invalidate();
                resumed = true;
            }
        }
        resumed
    }

    /// Adds a provider below every provider of its scope's precedence or a
    /// higher one and above the rest: a project root found below a touched
    /// file ranks with the project's roots, above the user's and the
    /// bundled skills, as the precedence rule says.
    pub fn add_by_scope(&self, provider: Arc<Provider>) -> Result<(), Error> {
        let rank = provider.scope().precedence();
        self.insert(provider, |providers| {
            providers
                .iter()
                .position(|p| p.scope().precedence() > rank)
                .unwrap_or(providers.len())
        })
    }

    /// Removes and disposes the provider with this id; its late callbacks do
    /// nothing.
    pub fn remove(&self, id: &str) -> Option<Arc<Provider>> {
        let removed = {
            let mut providers = self.write();
            let index = providers.iter().position(|p| p.id() == id)?;
            providers.remove(index)
        };
        if let Some(watcher) = self.watcher() {
            watcher.forget(&removed);
        }
        removed.dispose();
        self.changed();
        Some(removed)
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        if let Some(tx) = lock(&self.notify).as_ref() {
            let _ = tx.send(Notice::Registry);
        }
    }

    /// The providers, highest precedence first.
    pub fn providers(&self) -> Vec<Arc<Provider>> {
        self.read().clone()
    }

    /// The provider with this id.
    pub fn provider(&self, id: &str) -> Option<Arc<Provider>> {
        self.read().iter().find(|p| p.id() == id).cloned()
    }

    /// Marks exactly this registered provider instance dirty. A provider
    /// that is not (or no longer) registered is ignored: identity, not
    /// name, decides.
    pub fn invalidate_provider(&self, provider: &Arc<Provider>) -> bool {
        let registered = self.read().iter().any(|p| Arc::ptr_eq(p, provider));
        if registered {
            provider.invalidate();
        }
        registered
    }

    /// Tells the providers whose roots hold `paths` that the agent itself
    /// wrote them: each re-reads what matters before this returns, so the
    /// next snapshot sees the change without waiting for OS events.
    pub fn observe_paths(&self, paths: &[PathBuf]) -> Result<(), Error> {
        let paths: Vec<PathBuf> = paths.iter().map(|p| canonical_or_lexical(p)).collect();
        for provider in self.providers() {
            let mine: Vec<PathBuf> = paths
                .iter()
                .filter(|p| {
                    provider
                        .roots()
                        .iter()
                        .any(|r| p.starts_with(canonical_or_lexical(r)))
                })
                .cloned()
                .collect();
            if !mine.is_empty() {
                provider.observe(&mine)?;
            }
        }
        Ok(())
    }

    /// The merged catalog. Only dirty providers are asked again; a complete
    /// result is cached until some provider is invalidated. A read: what is
    /// watched follows the providers' own requests, never a snapshot.
    pub fn snapshot(&self) -> Arc<Catalog> {
        let generation = self.generation.load(Ordering::Acquire);
        let providers = self.providers();
        let watcher = self.watcher();
        if let Some((cached_generation, catalog)) = lock(&self.cached).clone()
            && cached_generation == generation
            && providers.iter().all(|p| !p.signals().is_dirty())
            && watcher
                .as_ref()
                .is_none_or(|w| providers.iter().all(|p| w.failure(p).is_none()))
        {
            return catalog;
        }
        let mut attempt = 0;
        loop {
            let generation = self.generation.load(Ordering::Acquire);
            let providers = self.providers();
            let mut settled = true;
            let views: Vec<Arc<ProviderView>> = providers
                .iter()
                .map(|p| {
                    let (view, changed) = observe(p, watcher.as_deref());
                    settled &= !changed;
                    view
                })
                .collect();
            settled &= generation == self.generation.load(Ordering::Acquire);
            if settled || attempt == MAX_DISCOVERY_RETRIES {
                // A provider that invalidates itself on every attempt is
                // used as it last answered: it cannot hold the catalog back.
                let mut catalog = merge::merge(&views);
                if !settled {
                    catalog.diagnostics.push(Diagnostic::warning(
                        "skillhost",
                        format!(
                            "a provider changed during each of {} discovery attempts; its latest view is used",
                            MAX_DISCOVERY_RETRIES + 1
                        ),
                    ));
                }
                catalog
                    .diagnostics
                    .extend(lock(&self.reported).iter().cloned());
                let catalog = Arc::new(catalog);
                if catalog.complete {
                    *lock(&self.cached) = Some((generation, catalog.clone()));
                }
                return catalog;
            }
            attempt += 1;
        }
    }

    /// Resolves `name` (or an alias) in the current catalog.
    fn resolve(&self, name: &str) -> Result<(Arc<Provider>, String), Error> {
        let catalog = self.snapshot();
        let unknown = || catalog.unknown(name);
        let skill = catalog.resolve(name).ok_or_else(unknown)?;
        let provider = self.provider(&skill.source).ok_or_else(unknown)?;
        Ok((provider, skill.name().to_string()))
    }

    /// Loads a skill (by name or alias): its provider reads it again now.
    pub fn load(&self, name: &str) -> Result<SkillDocument, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.load(&name)
    }

    /// Loads `skill` from the provider that serves it (a shadowed skill
    /// from its own provider, not from the one whose skill won the name).
    pub fn load_skill(&self, skill: &Skill) -> Result<SkillDocument, Error> {
        self.provider_of(skill)?.load(skill.name())
    }

    /// Lists the files of `skill`, from the provider that serves it.
    pub fn list_resources_of(&self, skill: &Skill) -> Result<Vec<SkillResource>, Error> {
        self.provider_of(skill)?.list_resources(skill.name())
    }

    fn provider_of(&self, skill: &Skill) -> Result<Arc<Provider>, Error> {
        self.provider(&skill.source)
            .ok_or_else(|| self.snapshot().unknown(skill.name()))
    }

    /// Lists the files of a skill.
    pub fn list_resources(&self, name: &str) -> Result<Vec<SkillResource>, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.list_resources(&name)
    }

    /// Reads one file of a skill.
    pub fn read_resource(&self, name: &str, path: &str) -> Result<Vec<u8>, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.read_resource(&name, path)
    }

    /// Disposes every provider and closes every watcher; late events and
    /// callbacks do nothing.
    pub fn dispose(&self) {
        let watcher = lock(&self.watcher).take().map(|(w, _)| w);
        *lock(&self.poller) = None;
        let providers = std::mem::take(&mut *self.write());
        for p in providers {
            if let Some(watcher) = &watcher {
                watcher.forget(&p);
            }
            p.dispose();
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.listeners.close();
        *lock(&self.notify) = None;
        *lock(&self.cached) = None;
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Provider>>> {
        crate::sync::read(&self.providers)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Provider>>> {
        crate::sync::write(&self.providers)
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.dispose();
    }
}

/// Has `watcher` watch for `provider` from now on: registered with its last
/// known requests installed, then kept in step after every provider call
/// that changes them. The hook holds neither side strongly, so a watcher
/// and the providers it serves never keep each other alive.
fn attach(watcher: &Arc<Watcher>, provider: &Arc<Provider>) {
    let (weak_watcher, weak_provider) = (Arc::downgrade(watcher), Arc::downgrade(provider));
    provider.signals().set_on_watches(Some(Hook::new(move || {
        if let (Some(watcher), Some(provider)) = (weak_watcher.upgrade(), weak_provider.upgrade()) {
            watcher.sync(&provider);
        }
    })));
    if watcher.observe(provider, provider.scope() == Scope::Project) {
        provider.invalidate();
    }
}

/// One provider's view. One whose watching failed is incomplete until it
/// recovers.
fn observe(provider: &Arc<Provider>, watcher: Option<&Watcher>) -> (Arc<ProviderView>, bool) {
    let (mut view, changed) = provider.view();
    let Some(watcher) = watcher else {
        return (view, changed);
    };
    if let Some(reason) = watcher.failure(provider) {
        let mut diagnostics = view.diagnostics.clone();
        diagnostics.push(
            Diagnostic::error(
                provider
                    .roots()
                    .first()
                    .map_or_else(|| provider.id().to_string(), |r| r.display().to_string()),
                format!("changes may be missed: {reason}"),
            )
            .from_source(provider.id()),
        );
        view = Arc::new(ProviderView {
            diagnostics,
            complete: false,
            ..(*view).clone()
        });
    }
    (view, changed)
}
