//! The registry: providers in precedence order, the merged catalog with its
//! completeness bit, exact per-provider invalidation, change listeners, and
//! the host watcher that serves its providers (SPEC C1–C6, D5, B6).

use crate::boundary::ProviderObservation;
use crate::error::Error;
use crate::model::{Catalog, Diagnostic, SkillDocument, SkillResource};
use crate::poll::Poller;
use crate::provider::{Provider, Scope};
use crate::watcher::{WatchOptions, Watcher};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

/// How many times discovery is repeated when a provider or the registry
/// changes while it runs, before a possibly stale result is returned.
pub const MAX_DISCOVERY_RETRIES: usize = 3;

type Listener = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct Listeners {
    next: AtomicU64,
    entries: Mutex<Vec<(u64, Listener)>>,
    /// Set by dispose: a notification already queued calls no one.
    closed: std::sync::atomic::AtomicBool,
}

/// Keeps a change listener registered; dropping it unsubscribes.
pub struct Subscription {
    id: u64,
    listeners: Weak<Listeners>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            lock(&listeners.entries).retain(|(id, _)| *id != self.id);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Providers in precedence order (first wins) and the catalog they make.
pub struct Registry {
    providers: RwLock<Vec<Arc<Provider>>>,
    generation: AtomicU64,
    cached: Mutex<Option<(u64, Arc<Catalog>)>>,
    listeners: Arc<Listeners>,
    notify: Mutex<Option<Sender<()>>>,
    watcher: Mutex<Option<Arc<Watcher>>>,
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
        let (tx, rx) = mpsc::channel::<()>();
        let weak = Arc::downgrade(&listeners);
        // Listeners run here, never inside a provider call, one burst of
        // changes at a time; one that panics does not stop the others.
        let spawned = std::thread::Builder::new()
            .name("skillhost-notify".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    while rx.try_recv().is_ok() {}
                    let Some(listeners) = weak.upgrade() else {
                        return;
                    };
                    let current: Vec<Listener> = lock(&listeners.entries)
                        .iter()
                        .map(|(_, l)| l.clone())
                        .collect();
                    for listener in current {
                        if listeners.closed.load(Ordering::Acquire) {
                            return;
                        }
                        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener()))
                            .is_err()
                        {
                            tracing::warn!("a change listener panicked; the others still run");
                        }
                    }
                }
            });
        let notify = match spawned {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the change notifier; listeners will not be called");
                None
            }
        };
        Registry {
            providers: RwLock::new(Vec::new()),
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

    /// Calls `listener` (with no details: fetch a snapshot, SPEC C6) after
    /// providers change, until the returned subscription is dropped.
    pub fn subscribe(&self, listener: impl Fn() + Send + Sync + 'static) -> Subscription {
        let id = self.listeners.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.listeners.entries).push((id, Arc::new(listener)));
        Subscription {
            id,
            listeners: Arc::downgrade(&self.listeners),
        }
    }

    /// Starts watching on behalf of the providers, with a watcher of its
    /// own: from now on every snapshot also keeps their watches in step with
    /// their requests.
    pub fn watch(&self, options: WatchOptions) -> Result<(), Error> {
        self.watch_with(Arc::new(Watcher::start(options)?));
        Ok(())
    }

    /// Watches through a watcher shared with other registries (one per
    /// project, say), so the bound on project watchers holds across them.
    /// Providers that must be polled (remote indexes) are polled from now on.
    pub fn watch_with(&self, watcher: Arc<Watcher>) {
        if let Some(old) = lock(&self.watcher).replace(watcher) {
            for provider in self.providers() {
                old.forget(&provider);
            }
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

    /// Polls every polled provider now, without waiting for its interval
    /// (only while watching).
    pub fn poll_now(&self) {
        if let Some(poller) = lock(&self.poller).as_ref() {
            poller.now();
        }
    }

    /// The watcher, when watching.
    pub fn watcher(&self) -> Option<Arc<Watcher>> {
        lock(&self.watcher).clone()
    }

    /// Adds a provider below every provider already registered.
    pub fn add(&self, provider: Arc<Provider>) {
        provider.signals().set_notify(lock(&self.notify).clone());
        if let (Some(poller), Some(every)) = (lock(&self.poller).as_ref(), provider.poll_interval())
        {
            poller.add(&provider, every);
        }
        self.write().push(provider);
        self.changed();
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
            let _ = tx.send(());
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

    /// Marks exactly this registered provider instance dirty (SPEC C2). A
    /// provider that is not (or no longer) registered is ignored: identity,
    /// not name, decides (SPEC C4).
    pub fn invalidate_provider(&self, provider: &Arc<Provider>) -> bool {
        let registered = self.read().iter().any(|p| Arc::ptr_eq(p, provider));
        if registered {
            provider.invalidate();
        }
        registered
    }

    /// Marks the provider with this id dirty.
    pub fn invalidate(&self, id: &str) -> bool {
        match self.provider(id) {
            Some(p) => {
                p.invalidate();
                true
            }
            None => false,
        }
    }

    /// Tells the providers whose roots hold `paths` that the agent itself
    /// wrote them (SPEC D5): each re-reads what matters before this returns,
    /// so the next snapshot sees the change without waiting for OS events.
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
    /// result is cached until some provider is invalidated (SPEC C1, C2).
    /// A provider invalidated while discovery runs makes it run again
    /// (bounded, SPEC C3).
    pub fn snapshot(&self) -> Arc<Catalog> {
        let generation = self.generation.load(Ordering::Acquire);
        let providers = self.providers();
        let watcher = self.watcher();
        if let Some((cached_generation, catalog)) = lock(&self.cached).clone()
            && cached_generation == generation
            && providers.iter().all(|p| !p.signals().is_dirty())
            && watcher
                .as_ref()
                .is_none_or(|w| providers.iter().all(|p| w.touch(p)))
        {
            return catalog;
        }
        let mut attempt = 0;
        loop {
            let generation = self.generation.load(Ordering::Acquire);
            let providers = self.providers();
            let mut settled = true;
            let views: Vec<Arc<ProviderObservation>> = providers
                .iter()
                .map(|p| {
                    let (view, changed) = observe(p, watcher.as_deref());
                    settled &= !changed;
                    view
                })
                .collect();
            settled &= generation == self.generation.load(Ordering::Acquire);
            if settled || attempt == MAX_DISCOVERY_RETRIES {
                let mut catalog = merge(&views);
                catalog.complete &= settled;
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
        let skill = catalog
            .get(name)
            .or_else(|| {
                catalog
                    .skills
                    .iter()
                    .find(|s| s.frontmatter.aliases.iter().any(|a| a == name))
            })
            .ok_or_else(|| Error::UnknownSkill {
                name: name.to_string(),
                available: available(&catalog),
            })?;
        let provider = self
            .provider(&skill.source)
            .ok_or_else(|| Error::UnknownSkill {
                name: name.to_string(),
                available: available(&catalog),
            })?;
        Ok((provider, skill.name().to_string()))
    }

    /// Loads a skill (by name or alias): its provider reads it again now.
    pub fn load(&self, name: &str) -> Result<SkillDocument, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.load(&name)
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
        let watcher = lock(&self.watcher).take();
        *lock(&self.poller) = None;
        let providers = std::mem::take(&mut *self.write());
        for p in providers {
            if let Some(watcher) = &watcher {
                watcher.forget(&p);
            }
            p.dispose();
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.listeners.closed.store(true, Ordering::Release);
        lock(&self.listeners.entries).clear();
        *lock(&self.notify) = None;
        *lock(&self.cached) = None;
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Provider>>> {
        self.providers.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Provider>>> {
        self.providers.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.dispose();
    }
}

/// One provider's view, with its watches kept in step. A provider whose
/// watches had been evicted rescans (changes may have been missed); one
/// whose watching failed is incomplete until it recovers (SPEC D6).
fn observe(
    provider: &Arc<Provider>,
    watcher: Option<&Watcher>,
) -> (Arc<ProviderObservation>, bool) {
    let (mut view, mut changed) = provider.view();
    let Some(watcher) = watcher else {
        return (view, changed);
    };
    if watcher.observe(provider, provider.scope() == Scope::Project) {
        provider.invalidate();
        (view, changed) = provider.view();
    }
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
        view = Arc::new(ProviderObservation {
            skills: view.skills.clone(),
            diagnostics,
            complete: false,
        });
    }
    (view, changed)
}

/// `path` with symlinks resolved where it exists (its parent otherwise), so
/// it compares with the canonical roots the grants use.
fn canonical_or_lexical(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let absolute = crate::capabilities::absolute(path);
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => {
            std::fs::canonicalize(parent).map_or(absolute.clone(), |p| p.join(name))
        }
        _ => absolute,
    }
}

fn available(catalog: &Catalog) -> String {
    const SHOWN: usize = 50;
    if catalog.skills.is_empty() {
        return "none".to_string();
    }
    let mut names: Vec<&str> = catalog
        .skills
        .iter()
        .take(SHOWN)
        .map(|s| s.name())
        .collect();
    let more = catalog.skills.len().saturating_sub(SHOWN);
    let more = (more > 0).then(|| format!("and {more} more"));
    names.extend(more.as_deref());
    names.join(", ")
}

/// Merges provider views in precedence order: the first skill of a name
/// wins; a later one from the same provider is a duplicate (an error), from
/// a lower provider it is shadowed (a warning); the same file reached
/// through two roots (a symlink) counts once (SPEC B6).
pub fn merge(views: &[Arc<ProviderObservation>]) -> Catalog {
    let mut catalog = Catalog {
        complete: true,
        ..Catalog::default()
    };
    let mut winners: HashMap<&str, usize> = HashMap::new();
    let mut files: HashSet<&PathBuf> = HashSet::new();
    for view in views {
        catalog.complete &= view.complete;
        catalog.diagnostics.extend(view.diagnostics.iter().cloned());
        for skill in &view.skills {
            if !files.insert(&skill.path) {
                continue;
            }
            if let Some(&winner) = winners.get(skill.name()) {
                let winner = &catalog.skills[winner];
                let path = skill.path.display().to_string();
                let mut d = if winner.source == skill.source {
                    Diagnostic::error(
                        path,
                        format!(
                            "duplicate skill name {:?}: already defined by {}; this one is ignored",
                            skill.name(),
                            winner.path.display()
                        ),
                    )
                } else {
                    Diagnostic::warning(
                        path,
                        format!(
                            "skill {:?} is shadowed by {} (from {})",
                            skill.name(),
                            winner.path.display(),
                            winner.source
                        ),
                    )
                }
                .from_source(&skill.source);
                d.field = Some("name".to_string());
                catalog.diagnostics.push(d);
                continue;
            }
            winners.insert(skill.name(), catalog.skills.len());
            catalog.skills.push(skill.clone());
        }
    }
    catalog.skills.sort_by(|a, b| a.name().cmp(b.name()));
    catalog
}
