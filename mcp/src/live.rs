//! Keeping the view in step with the catalog: the registry watches as
//! `skillhost watch` does, and its one change listener (the catalog may
//! have changed; these files changed, even when no catalog did) wakes one
//! worker thread, which makes the next view and tells every session what
//! changed.
//!
//! The worker asks providers again only for what may have changed: a local
//! skill whose catalog entry changed or whose folder saw a change, and
//! every skill of a provider without host files (a remote index, say) that
//! was invalidated. Everything else is carried over.

use crate::entry::{self, Entry};
use crate::error::ServeError;
use crate::view::View;
use skillhost::Registry;
use skillhost::registry::watch::WatchOptions;
use skillhost::registry::{Change as CatalogChange, Subscription};
use skillhost::session::Usage;
use skillhost::session::render::{RenderOptions, Scores};
use skillhost::sync::lock;
use skillhost_usage::UsageStore;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::sync::broadcast;

/// How long an incomplete catalog waits before its sources are asked again.
const RETRY_INCOMPLETE: Duration = Duration::from_millis(500);
/// Changes a session may fall behind before it is told to re-list everything.
const CHANGE_BACKLOG: usize = 256;

/// How the server serves.
#[derive(Debug, Clone)]
pub struct Options {
    /// How the registry watches its providers.
    pub watch: WatchOptions,
    /// Caps on the listing in the `skill` tool's description (which never
    /// passes [`crate::tools::DESCRIPTION_MAX`]) and on each search result.
    pub render: RenderOptions,
    /// The `ttlMs` of cacheable results.
    pub ttl_ms: u64,
    /// Most entries in one page of a list.
    pub page_size: usize,
    /// Most bytes (roughly) of skill entries in one `skills/list` page; a
    /// page holds at least one entry.
    pub page_bytes: usize,
    /// Largest file `resources/read` sends; a larger one is refused with
    /// an error naming its size (its answer would be held whole in memory
    /// until the client reads it).
    pub max_read_bytes: u64,
    /// Where invocations through prompts and the `skill` tool are recorded,
    /// as `skillhost invoke` records them (none: not recorded).
    pub usage: Option<Arc<UsageStore>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            watch: WatchOptions::default(),
            render: RenderOptions::default(),
            // Changes are pushed to every session, so a listing may be kept
            // a while; a client that verifies a stale digest calls skills/get.
            ttl_ms: 60_000,
            page_size: 500,
            page_bytes: 1 << 20,
            max_read_bytes: 16 << 20,
            usage: None,
        }
    }
}

/// What changed, as sessions are told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// `resources/list` changed.
    pub resources: bool,
    /// `prompts/list` changed.
    pub prompts: bool,
    /// `tools/list` changed (the listing in the tool's description).
    pub tools: bool,
    /// Files whose bytes changed, by URI.
    pub updated: Arc<Vec<String>>,
}

impl Change {
    /// Everything: what a session that fell behind is told.
    pub fn everything(updated: Vec<String>) -> Change {
        Change {
            resources: true,
            prompts: true,
            tools: true,
            updated: Arc::new(updated),
        }
    }

    fn is_empty(&self) -> bool {
        !self.resources && !self.prompts && !self.tools && self.updated.is_empty()
    }
}

enum Wake {
    Catalog,
    Paths(Vec<PathBuf>),
    Stop,
}

/// The live catalog a server serves: the registry, the current view, and
/// the stream of changes.
pub struct Live {
    registry: Arc<Registry>,
    options: Options,
    view: Arc<RwLock<Arc<View>>>,
    changes: broadcast::Sender<Change>,
    wake: mpsc::Sender<Wake>,
    worker: Mutex<Option<JoinHandle<()>>>,
    rebuilds: Arc<AtomicU64>,
    subscription: Mutex<Option<Subscription>>,
}

impl Live {
    /// Starts watching through `registry` (unless it already does), makes
    /// the first view and starts the worker that keeps it current.
    pub fn start(registry: Arc<Registry>, options: Options) -> Result<Arc<Live>, ServeError> {
        if registry.watcher().is_none() {
            registry.watch(options.watch.clone())?;
        }
        let first = rebuild(&registry, &View::default(), &Dirty::default(), &options);
        let (changes, _) = broadcast::channel(CHANGE_BACKLOG);
        let (wake, woken) = mpsc::channel();
        let to_worker = wake.clone();
        let subscription = registry.subscribe(move |change| {
            let wake = match change {
                CatalogChange::Catalog { .. } => Wake::Catalog,
                CatalogChange::Files { changes, .. } => {
                    Wake::Paths(changes.iter().map(|(p, _)| p.clone()).collect())
                }
            };
            let _ = to_worker.send(wake);
        });
        let view = Arc::new(RwLock::new(Arc::new(first)));
        let rebuilds = Arc::new(AtomicU64::new(0));
        let worker = Worker {
            registry: registry.clone(),
            options: options.clone(),
            view: view.clone(),
            changes: changes.clone(),
            rebuilds: rebuilds.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("skillhost-mcp-view".into())
            .spawn(move || worker.run(woken))
            .map_err(|e| ServeError::Start(format!("cannot start the view thread: {e}")))?;
        Ok(Arc::new(Live {
            registry,
            options,
            view,
            changes,
            wake,
            worker: Mutex::new(Some(thread)),
            rebuilds,
            subscription: Mutex::new(Some(subscription)),
        }))
    }

    /// The registry served.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// How it serves.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The current view.
    pub fn view(&self) -> Arc<View> {
        skillhost::sync::read(&self.view).clone()
    }

    /// Changes from now on.
    pub fn changes(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// How many views were made after the first (for tests and benchmarks).
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.load(Ordering::Acquire)
    }

    /// Stops following the catalog; sessions hear of no more changes.
    pub fn close(&self) {
        *lock(&self.subscription) = None;
        let _ = self.wake.send(Wake::Stop);
        if let Some(thread) = lock(&self.worker).take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.close();
    }
}

/// What woke the worker since the last view.
#[derive(Default)]
struct Dirty {
    paths: Vec<PathBuf>,
}

impl Dirty {
    fn touches(&self, watch: &Option<PathBuf>) -> bool {
        watch.as_ref().is_some_and(|w| {
            self.paths
                .iter()
                .any(|p| p.starts_with(w) || w.starts_with(p))
        })
    }
}

struct Worker {
    registry: Arc<Registry>,
    options: Options,
    view: Arc<RwLock<Arc<View>>>,
    changes: broadcast::Sender<Change>,
    rebuilds: Arc<AtomicU64>,
}

impl Worker {
    fn run(self, woken: mpsc::Receiver<Wake>) {
        loop {
            let current = skillhost::sync::read(&self.view).clone();
            let wait = if current.catalog.complete {
                Duration::from_secs(3600)
            } else {
                RETRY_INCOMPLETE
            };
            let mut dirty = Dirty::default();
            let mut woke = false;
            match woken.recv_timeout(wait) {
                Ok(Wake::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(wake) => {
                    woke = true;
                    if let Wake::Paths(paths) = wake {
                        dirty.paths.extend(paths);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            while let Ok(wake) = woken.try_recv() {
                match wake {
                    Wake::Stop => return,
                    Wake::Paths(paths) => dirty.paths.extend(paths),
                    Wake::Catalog => {}
                }
            }
            if !woke && current.catalog.complete {
                continue;
            }
            let started = std::time::Instant::now();
            let next = rebuild(&self.registry, &current, &dirty, &self.options);
            let change = diff(&current, &next);
            tracing::debug!(
                elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
                skills = next.entries.len(),
                ?change,
                "view made again"
            );
            let replaced =
                std::mem::replace(&mut *skillhost::sync::write(&self.view), Arc::new(next));
            self.rebuilds.fetch_add(1, Ordering::AcqRel);
            if !change.is_empty() {
                // No receivers is not an error: nobody is connected.
                let _ = self.changes.send(change);
            }
            // Freeing a view of 1,000 skills takes a tenth of making one:
            // done after sessions were told, and outside the lock, so
            // neither a notification nor a request waits for it.
            drop(current);
            drop(replaced);
        }
    }
}

/// The next view: the catalog now, with entries carried over where
/// nothing they depend on changed.
fn rebuild(registry: &Registry, previous: &View, dirty: &Dirty, options: &Options) -> View {
    // Generations are read before the snapshot: an invalidation that lands
    // while the snapshot runs then leaves the entries it made older than
    // their provider, so the wake it sends makes them again. Read after,
    // a body-only change (the skill compares equal) could be stamped as
    // seen with the old body and never be told to subscribers. A provider
    // the snapshot added counts as generation 0: made again next time.
    let generations: HashMap<String, u64> = registry
        .providers()
        .iter()
        .map(|p| (p.id().to_string(), p.signals().generation()))
        .collect();
    let catalog = registry.snapshot();
    let providers: HashMap<String, (Option<String>, u64)> = registry
        .providers()
        .iter()
        .map(|p| {
            let generation = generations.get(p.id()).copied().unwrap_or(0);
            (
                p.id().to_string(),
                (p.namespace().map(str::to_string), generation),
            )
        })
        .collect();
    let served: HashMap<&str, &Arc<Entry>> = previous
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e))
        .collect();
    let mut entries = Vec::with_capacity(catalog.skills.len());
    let mut left_out = BTreeMap::new();
    for skill in &catalog.skills {
        let (namespace, generation) = providers.get(&skill.source).cloned().unwrap_or((None, 0));
        // A local skill changes only through its files (the watcher says
        // which); one without host files whenever its provider changed.
        let unchanged = |old: &Arc<skillhost::Skill>, watch: &Option<PathBuf>, made_at: u64| {
            (Arc::ptr_eq(old, skill) || old == skill)
                && !dirty.touches(watch)
                && (watch.is_some() || made_at == generation)
        };
        if let Some(old) = served.get(skill.name())
            && unchanged(&old.skill, &old.watch, old.generation)
        {
            entries.push(Arc::clone(old));
            continue;
        }
        if let Some(old) = previous.left_out.get(skill.name())
            && !old.again
            && unchanged(&old.skill, &old.watch, old.generation)
        {
            left_out.insert(skill.name().to_string(), old.clone());
            continue;
        }
        match entry::build(registry, skill, namespace.as_deref(), generation) {
            Ok(made) => entries.push(Arc::new(made)),
            Err(out) => {
                left_out.insert(skill.name().to_string(), out);
            }
        }
    }
    let scores = Arc::new(scores_of(options, &catalog));
    let view = View::assemble(catalog, entries, left_out, options.render, scores);
    report_new(previous, &view);
    view
}

/// The usage scores that rank the view, as `inject` ranks its listing; a
/// store that cannot be read leaves the view ranked by precedence and name.
fn scores_of(options: &Options, catalog: &skillhost::Catalog) -> Scores {
    let Some(store) = &options.usage else {
        return Scores::new();
    };
    match Usage::scores(&**store, catalog) {
        Ok(scores) => scores,
        Err(e) => {
            tracing::warn!("usage scores not used: {e}");
            Scores::new()
        }
    }
}

/// Logs catalog problems and left-out skills not logged before: the user
/// learns why a skill is missing from what clients see.
fn report_new(previous: &View, next: &View) {
    let known: BTreeSet<String> = previous
        .catalog
        .diagnostics
        .iter()
        .map(|d| d.to_string())
        .collect();
    for d in &next.catalog.diagnostics {
        let text = d.to_string();
        if !known.contains(&text) {
            tracing::warn!("{text}");
        }
    }
    for (name, out) in &next.left_out {
        if previous.left_out.get(name).map(|o| &o.reason) != Some(&out.reason) {
            tracing::warn!(skill = name.as_str(), "not served over MCP: {}", out.reason);
        }
    }
}

/// What sessions must be told about going from `old` to `new`. Files are
/// compared only in entries that were made again: an entry carried over
/// holds the same files with the same digests.
fn diff(old: &View, new: &View) -> Change {
    let mut updated: Vec<String> = Vec::new();
    for entry in &new.entries {
        let Some(before) = old.entry_by_uri_sorted(&entry.uri) else {
            continue;
        };
        if Arc::ptr_eq(before, entry) {
            continue;
        }
        let digests: HashMap<&str, &str> = before
            .files
            .iter()
            .map(|f| (f.uri.as_str(), f.digest.as_str()))
            .collect();
        updated.extend(
            entry
                .files
                .iter()
                .filter(|f| digests.get(f.uri.as_str()).is_some_and(|d| *d != f.digest))
                .map(|f| f.uri.clone()),
        );
    }
    updated.sort();
    Change {
        resources: !old.same_resources(new),
        prompts: old.prompts != new.prompts,
        tools: old.tools != new.tools,
        updated: Arc::new(updated),
    }
}
