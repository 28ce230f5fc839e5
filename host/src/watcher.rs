//! Host-side watching on behalf of providers (SPEC D1–D4, D6).
//!
//! Providers are sandboxed and cannot watch files; they ask the host through
//! the `watch` import, and only inside their grants. One `notify` watcher
//! (native events or polling) serves every provider. Events are mapped back
//! to the providers whose watch scope contains them, collected per provider
//! until the burst is over (a quiet period, capped), and delivered in one
//! `on-change` call: the provider decides whether its catalog changed.
//!
//! A watch target that does not exist yet is watched from its nearest
//! existing ancestor, one path segment at a time; when it appears the real
//! watch takes over, and when it is deleted the ancestor watch comes back.
//! A failure to watch makes that provider's view incomplete and is retried
//! with backoff; on recovery the provider rescans, since changes may have
//! been missed.

use crate::provider::{ChangeKind, Provider};
use notify::Watcher as _;
use notify::event::{EventKind, ModifyKind, RenameMode};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// The operating system's notifications (inotify, FSEvents, ...).
    Native,
    /// Scanning the watched folders at this interval.
    Poll(Duration),
}

/// Watching options (SPEC D3, D4).
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Native events or polling.
    pub mode: WatchMode,
    /// A burst ends after this long without events; then it is delivered.
    pub window: Duration,
    /// A burst is delivered at the latest this long after its first event.
    pub max_delay: Duration,
    /// Wait until written files have not changed for this long (for writers
    /// that save in several steps).
    pub stability: Option<Duration>,
    /// Watch symlinked subfolders too (linked skill folders).
    pub follow_symlinks: bool,
    /// Most project providers watched at once; the least recently observed
    /// is evicted, and rescans when observed again.
    pub max_project_watchers: usize,
    /// First wait before retrying a failed watch; doubles up to `retry_max`.
    pub retry_initial: Duration,
    /// Longest wait between retries.
    pub retry_max: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            mode: WatchMode::Native,
            window: Duration::from_millis(10),
            max_delay: Duration::from_millis(250),
            stability: None,
            follow_symlinks: true,
            max_project_watchers: 8,
            retry_initial: Duration::from_millis(100),
            retry_max: Duration::from_secs(5),
        }
    }
}

/// The host's watcher for every provider of a registry.
pub struct Watcher {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    options: WatchOptions,
    state: Mutex<State>,
    tx: Sender<Msg>,
}

enum Msg {
    Event(notify::Result<notify::Event>),
    Wake,
    Stop,
}

struct State {
    backend: Option<Box<dyn notify::Watcher + Send>>,
    installed: HashMap<PathBuf, usize>,
    providers: Vec<Watched>,
    clock: u64,
    stopped: bool,
}

/// Changes gathered for one provider, by host path.
type Changes = Vec<(PathBuf, ChangeKind)>;

/// One provider's watch scope and what is pending for it.
struct Watched {
    provider: Arc<Provider>,
    project: bool,
    targets: Vec<Target>,
    last_observed: u64,
    evicted: bool,
    failure: Option<String>,
    backoff: Duration,
    retry_at: Option<Instant>,
    pending: Changes,
    first_event: Option<Instant>,
    last_event: Option<Instant>,
    deliveries: u64,
}

/// A folder a provider asked to watch, `depth` levels deep.
struct Target {
    guest: String,
    host: PathBuf,
    depth: u32,
    /// OS watches held for this target.
    watching: Vec<PathBuf>,
    /// The nearest existing ancestor, while the target does not exist.
    waiting_on: Option<PathBuf>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watcher {
    /// Starts the watcher and its event thread.
    pub fn start(options: WatchOptions) -> Result<Watcher, crate::Error> {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            options,
            state: Mutex::new(State {
                backend: None,
                installed: HashMap::new(),
                providers: Vec::new(),
                clock: 0,
                stopped: false,
            }),
            tx,
        });
        {
            let mut state = lock(&shared.state);
            if let Err(e) = shared.start_backend(&mut state) {
                tracing::warn!(error = %e, "the file watcher could not start; retrying");
            }
        }
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("skillhost-watch".into())
            .spawn(move || worker.run(rx))
            .map_err(|e| crate::Error::Engine(format!("cannot start the watcher thread: {e}")))?;
        Ok(Watcher {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Registers `provider` (or refreshes its watch scope from its current
    /// watch requests) and marks it observed now. Returns true when it had
    /// been evicted: it is watched again and must rescan, since changes may
    /// have been missed meanwhile.
    pub fn observe(&self, provider: &Arc<Provider>, project: bool) -> bool {
        let mut state = lock(&self.shared.state);
        if state.stopped {
            return false;
        }
        state.clock += 1;
        let now = state.clock;
        let index = match state
            .providers
            .iter()
            .position(|w| Arc::ptr_eq(&w.provider, provider))
        {
            Some(i) => i,
            None => {
                state.providers.push(Watched {
                    provider: provider.clone(),
                    project,
                    targets: Vec::new(),
                    last_observed: now,
                    evicted: false,
                    failure: None,
                    backoff: self.shared.options.retry_initial,
                    retry_at: None,
                    pending: Vec::new(),
                    first_event: None,
                    last_event: None,
                    deliveries: 0,
                });
                state.providers.len() - 1
            }
        };
        state.providers[index].last_observed = now;
        let was_evicted = std::mem::replace(&mut state.providers[index].evicted, false);
        self.shared.sync_targets(&mut state, index);
        self.shared.evict_beyond_cap(&mut state);
        drop(state);
        let _ = self.shared.tx.send(Msg::Wake);
        was_evicted
    }

    /// Marks `provider` observed now (for the least-recently-observed bound)
    /// and says whether it is watched: false when its watches were evicted
    /// or it was never registered, and a full [`Watcher::observe`] is due.
    pub fn touch(&self, provider: &Arc<Provider>) -> bool {
        let mut state = lock(&self.shared.state);
        state.clock += 1;
        let now = state.clock;
        match state
            .providers
            .iter_mut()
            .find(|w| Arc::ptr_eq(&w.provider, provider))
        {
            Some(watched) => {
                watched.last_observed = now;
                !watched.evicted
            }
            None => false,
        }
    }

    /// Why this provider's changes may be missed right now, if they may.
    pub fn failure(&self, provider: &Arc<Provider>) -> Option<String> {
        let state = lock(&self.shared.state);
        if let Some(w) = state
            .providers
            .iter()
            .find(|w| Arc::ptr_eq(&w.provider, provider))
        {
            return w.failure.clone();
        }
        None
    }

    /// Whether the provider's watches were evicted (it is not watched now).
    pub fn is_evicted(&self, provider: &Arc<Provider>) -> bool {
        let state = lock(&self.shared.state);
        state
            .providers
            .iter()
            .any(|w| Arc::ptr_eq(&w.provider, provider) && w.evicted)
    }

    /// How many `on-change` deliveries this provider received.
    pub fn deliveries(&self, provider: &Arc<Provider>) -> u64 {
        let state = lock(&self.shared.state);
        state
            .providers
            .iter()
            .find(|w| Arc::ptr_eq(&w.provider, provider))
            .map_or(0, |w| w.deliveries)
    }

    /// Stops watching `provider`.
    pub fn forget(&self, provider: &Arc<Provider>) {
        let mut state = lock(&self.shared.state);
        if let Some(index) = state
            .providers
            .iter()
            .position(|w| Arc::ptr_eq(&w.provider, provider))
        {
            let mut watched = state.providers.remove(index);
            for target in &mut watched.targets {
                state.uninstall(target);
            }
        }
    }

    /// Closes every watch and stops the event thread; late events do nothing.
    pub fn dispose(&self) {
        {
            let mut state = lock(&self.shared.state);
            state.stopped = true;
            state.providers.clear();
            state.installed.clear();
            state.backend = None;
        }
        let _ = self.shared.tx.send(Msg::Stop);
        if let Some(thread) = lock(&self.thread).take()
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.dispose();
    }
}

impl Shared {
    fn start_backend(&self, state: &mut State) -> Result<(), String> {
        let tx = self.tx.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            let _ = tx.send(Msg::Event(event));
        };
        let config = notify::Config::default().with_follow_symlinks(self.options.follow_symlinks);
        let backend: Box<dyn notify::Watcher + Send> = match self.options.mode {
            WatchMode::Native => Box::new(
                notify::RecommendedWatcher::new(handler, config).map_err(|e| e.to_string())?,
            ),
            // notify's poller compares mtimes in whole seconds; comparing
            // contents too catches an edit made within the same second.
            WatchMode::Poll(interval) => Box::new(
                notify::PollWatcher::new(
                    handler,
                    config
                        .with_poll_interval(interval)
                        .with_compare_contents(true),
                )
                .map_err(|e| e.to_string())?,
            ),
        };
        state.backend = Some(backend);
        // Whatever was installed belonged to a previous backend.
        state.installed.clear();
        Ok(())
    }

    /// Brings a provider's targets in line with its current watch requests.
    fn sync_targets(&self, state: &mut State, index: usize) {
        if state.providers[index].evicted {
            return;
        }
        let wanted = state.providers[index].provider.watch_targets();
        let mut targets = std::mem::take(&mut state.providers[index].targets);
        targets.retain_mut(|t| {
            let keep = wanted
                .iter()
                .any(|(g, h, d)| *g == t.guest && *h == t.host && *d == t.depth);
            if !keep {
                state.uninstall(t);
            }
            keep
        });
        let mut failure = None;
        for (guest, host, depth) in wanted {
            if targets.iter().any(|t| t.guest == guest) {
                continue;
            }
            let mut target = Target {
                guest,
                host,
                depth,
                watching: Vec::new(),
                waiting_on: None,
            };
            if let Err(e) = state.install(&mut target, self.options.follow_symlinks) {
                failure = Some(e);
            }
            targets.push(target);
        }
        // Targets that failed earlier are retried by the event thread.
        let watched = &mut state.providers[index];
        watched.targets = targets;
        if let Some(e) = failure {
            self.fail(watched, e);
        }
    }

    fn fail(&self, watched: &mut Watched, reason: String) {
        if watched.failure.is_none() {
            tracing::warn!(provider = watched.provider.id(), %reason, "watching failed; retrying");
            watched.backoff = self.options.retry_initial;
            // The registry must learn the view is no longer complete.
            watched.provider.invalidate();
        } else {
            watched.backoff = (watched.backoff * 2).min(self.options.retry_max);
        }
        watched.failure = Some(reason);
        watched.retry_at = Some(Instant::now() + watched.backoff);
    }

    fn evict_beyond_cap(&self, state: &mut State) {
        loop {
            let active: Vec<usize> = (0..state.providers.len())
                .filter(|&i| state.providers[i].project && !state.providers[i].evicted)
                .collect();
            if active.len() <= self.options.max_project_watchers {
                return;
            }
            let Some(&oldest) = active
                .iter()
                .min_by_key(|&&i| state.providers[i].last_observed)
            else {
                return;
            };
            let mut targets = std::mem::take(&mut state.providers[oldest].targets);
            for target in &mut targets {
                state.uninstall(target);
            }
            let watched = &mut state.providers[oldest];
            tracing::debug!(provider = watched.provider.id(), "project watcher evicted");
            watched.evicted = true;
            watched.pending.clear();
            watched.first_event = None;
            watched.last_event = None;
        }
    }

    fn run(&self, rx: Receiver<Msg>) {
        loop {
            let timeout = self.next_wake().map_or(Duration::from_secs(3600), |at| {
                at.saturating_duration_since(Instant::now())
            });
            match rx.recv_timeout(timeout) {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Msg::Event(event)) => self.handle(event),
                Ok(Msg::Wake) | Err(RecvTimeoutError::Timeout) => {}
            }
            if lock(&self.state).stopped {
                return;
            }
            self.retry_failures();
            self.deliver_due();
        }
    }

    /// The next moment something is due: a burst to deliver or a retry.
    fn next_wake(&self) -> Option<Instant> {
        let state = lock(&self.state);
        state
            .providers
            .iter()
            .flat_map(|w| {
                let burst = w.first_event.zip(w.last_event).map(|(first, last)| {
                    let quiet = last
                        + self
                            .options
                            .window
                            .max(self.options.stability.unwrap_or_default());
                    quiet.min(
                        first
                            + self
                                .options
                                .max_delay
                                .max(self.options.stability.unwrap_or_default() * 10),
                    )
                });
                [burst, w.retry_at]
            })
            .flatten()
            .min()
    }

    fn handle(&self, event: notify::Result<notify::Event>) {
        let mut state = lock(&self.state);
        if state.stopped {
            return;
        }
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                let reason = format!("the file watcher reported: {e}");
                let indices: Vec<usize> = if e.paths.is_empty() {
                    (0..state.providers.len()).collect()
                } else {
                    (0..state.providers.len())
                        .filter(|&i| {
                            state.providers[i]
                                .targets
                                .iter()
                                .any(|t| e.paths.iter().any(|p| p.starts_with(&t.host)))
                        })
                        .collect()
                };
                for i in indices {
                    self.fail(&mut state.providers[i], reason.clone());
                }
                return;
            }
        };
        if event.need_rescan() {
            for i in 0..state.providers.len() {
                let roots: Vec<PathBuf> = state.providers[i]
                    .targets
                    .iter()
                    .map(|t| t.host.clone())
                    .collect();
                for root in roots {
                    queue(&mut state.providers[i], root, ChangeKind::Rescan);
                }
            }
            return;
        }
        for (path, kind) in changes(&event) {
            self.route(&mut state, &path, kind);
        }
    }

    /// Sends one change to every provider whose scope holds it, keeping the
    /// OS watches in step (new subfolders, vanished and appearing targets).
    fn route(&self, state: &mut State, path: &Path, kind: ChangeKind) {
        let follow = self.options.follow_symlinks;
        for i in 0..state.providers.len() {
            if state.providers[i].evicted {
                continue;
            }
            let mut targets = std::mem::take(&mut state.providers[i].targets);
            let mut queued: Vec<(PathBuf, ChangeKind)> = Vec::new();
            let mut failure = None;
            for target in &mut targets {
                if let Some(ancestor) = target.waiting_on.clone() {
                    // D2: the next segment towards a missing target may have appeared.
                    if path.parent() == Some(ancestor.as_path()) && target.host.starts_with(path) {
                        state.uninstall(target);
                        match state.install(target, follow) {
                            Ok(()) if target.waiting_on.is_none() => {
                                queued.push((target.host.clone(), ChangeKind::Created));
                            }
                            Ok(()) => {}
                            Err(e) => failure = Some(e),
                        }
                    }
                    continue;
                }
                let Ok(below) = path.strip_prefix(&target.host) else {
                    continue;
                };
                let level = below.components().count();
                if level == 0 {
                    if kind == ChangeKind::Removed || !target.host.is_dir() {
                        // D2: the target is gone; watch for it to come back.
                        state.uninstall(target);
                        if let Err(e) = state.install(target, follow) {
                            failure = Some(e);
                        }
                        queued.push((target.host.clone(), ChangeKind::Removed));
                    } else {
                        queued.push((path.to_path_buf(), kind));
                    }
                    continue;
                }
                if level > target.depth as usize + 1 {
                    continue;
                }
                queued.push((path.to_path_buf(), kind));
                if level <= target.depth as usize {
                    let remaining = target.depth - level as u32;
                    match kind {
                        ChangeKind::Created | ChangeKind::Modified
                            if is_watchable_dir(path, follow) =>
                        {
                            if let Err(e) = state.watch_tree(target, path, remaining, follow) {
                                failure = Some(e);
                            }
                        }
                        ChangeKind::Removed => state.unwatch_below(target, path),
                        _ => {}
                    }
                }
            }
            let watched = &mut state.providers[i];
            watched.targets = targets;
            for (path, kind) in queued {
                queue(watched, path, kind);
            }
            if let Some(e) = failure {
                self.fail(watched, e);
            }
        }
    }

    fn retry_failures(&self) {
        let now = Instant::now();
        let mut state = lock(&self.state);
        let due: Vec<usize> = (0..state.providers.len())
            .filter(|&i| state.providers[i].retry_at.is_some_and(|at| at <= now))
            .collect();
        if due.is_empty() {
            return;
        }
        if state.backend.is_none()
            && let Err(e) = self.start_backend(&mut state)
        {
            for i in due {
                self.fail(
                    &mut state.providers[i],
                    format!("the file watcher could not start: {e}"),
                );
            }
            return;
        }
        let follow = self.options.follow_symlinks;
        for i in due {
            let mut targets = std::mem::take(&mut state.providers[i].targets);
            let mut failure = None;
            for target in &mut targets {
                state.uninstall(target);
                if let Err(e) = state.install(target, follow) {
                    failure = Some(e);
                }
            }
            let watched = &mut state.providers[i];
            watched.targets = targets;
            match failure {
                Some(e) => self.fail(watched, e),
                None => {
                    tracing::info!(provider = watched.provider.id(), "watching recovered");
                    watched.failure = None;
                    watched.retry_at = None;
                    // Changes may have been missed: rescan.
                    watched.provider.invalidate();
                }
            }
        }
    }

    /// Delivers every burst that is over, outside the state lock (the
    /// provider runs guest code).
    fn deliver_due(&self) {
        let now = Instant::now();
        let stability = self.options.stability;
        let mut due: Vec<(Arc<Provider>, Changes)> = Vec::new();
        {
            let mut state = lock(&self.state);
            for watched in &mut state.providers {
                let (Some(first), Some(last)) = (watched.first_event, watched.last_event) else {
                    continue;
                };
                let quiet = now >= last + self.options.window;
                let overdue = now
                    >= first
                        + self
                            .options
                            .max_delay
                            .max(stability.unwrap_or_default() * 10);
                let settled = match stability {
                    Some(d) if !overdue => watched.pending.iter().all(|(p, _)| settled_for(p, d)),
                    _ => true,
                };
                if !((quiet && settled) || overdue) {
                    continue;
                }
                watched.first_event = None;
                watched.last_event = None;
                watched.deliveries += 1;
                due.push((
                    watched.provider.clone(),
                    std::mem::take(&mut watched.pending),
                ));
            }
        }
        for (provider, events) in due {
            if let Err(e) = provider.on_change(&events) {
                tracing::warn!(provider = provider.id(), error = %e, "delivering changes failed");
            }
        }
    }
}

/// Adds a change to a provider's pending burst (one entry per path; a
/// removal or rescan wins over a modification).
fn queue(watched: &mut Watched, path: PathBuf, kind: ChangeKind) {
    let now = Instant::now();
    watched.first_event.get_or_insert(now);
    watched.last_event = Some(now);
    match watched.pending.iter_mut().find(|(p, _)| *p == path) {
        Some(existing) => {
            if kind != ChangeKind::Modified {
                existing.1 = kind;
            }
        }
        None => watched.pending.push((path, kind)),
    }
}

/// The changes one notify event reports. Accesses are dropped: reading a
/// file changes nothing.
fn changes(event: &notify::Event) -> Vec<(PathBuf, ChangeKind)> {
    let kind = match event.kind {
        EventKind::Access(_) => return Vec::new(),
        EventKind::Create(_) => ChangeKind::Created,
        EventKind::Remove(_) => ChangeKind::Removed,
        EventKind::Modify(ModifyKind::Name(RenameMode::From)) => ChangeKind::Removed,
        EventKind::Modify(ModifyKind::Name(RenameMode::To)) => ChangeKind::Created,
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
            return vec![
                (event.paths[0].clone(), ChangeKind::Removed),
                (event.paths[1].clone(), ChangeKind::Created),
            ];
        }
        EventKind::Modify(_) | EventKind::Any | EventKind::Other => ChangeKind::Modified,
    };
    event.paths.iter().map(|p| (p.clone(), kind)).collect()
}

fn is_watchable_dir(path: &Path, follow: bool) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => true,
        Ok(meta) if meta.file_type().is_symlink() => follow && path.is_dir(),
        _ => false,
    }
}

/// Whether the file has not been modified for `quiet`. A file that is gone,
/// or dated in the future, counts as settled rather than waited on forever.
fn settled_for(path: &Path, quiet: Duration) -> bool {
    let Ok(modified) = std::fs::metadata(path).and_then(|m| m.modified()) else {
        return true;
    };
    std::time::SystemTime::now()
        .duration_since(modified)
        .map_or(true, |age| age >= quiet)
}

impl State {
    fn add_watch(&mut self, path: &Path) -> Result<(), String> {
        if let Some(count) = self.installed.get_mut(path) {
            *count += 1;
            return Ok(());
        }
        let backend = self
            .backend
            .as_mut()
            .ok_or_else(|| "the file watcher is not running".to_string())?;
        backend
            .watch(path, notify::RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", path.display()))?;
        self.installed.insert(path.to_path_buf(), 1);
        Ok(())
    }

    fn remove_watch(&mut self, path: &Path) {
        let Some(count) = self.installed.get_mut(path) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.installed.remove(path);
            // A folder that is gone took its watch with it.
            if let Some(backend) = self.backend.as_mut()
                && path.exists()
            {
                let _ = backend.unwatch(path);
            }
        }
    }

    /// Installs a target: its folder and subfolders down to its depth, or
    /// its nearest existing ancestor while it does not exist.
    fn install(&mut self, target: &mut Target, follow: bool) -> Result<(), String> {
        if target.host.is_dir() {
            target.waiting_on = None;
            let host = target.host.clone();
            return self.watch_tree(target, &host, target.depth, follow);
        }
        let mut ancestor = target.host.parent();
        while let Some(candidate) = ancestor {
            if candidate.is_dir() {
                let candidate = candidate.to_path_buf();
                self.add_watch(&candidate)?;
                target.watching.push(candidate.clone());
                target.waiting_on = Some(candidate);
                return Ok(());
            }
            ancestor = candidate.parent();
        }
        Err(format!(
            "no existing folder above {}",
            target.host.display()
        ))
    }

    /// Watches `folder` and its subfolders `depth` levels down.
    fn watch_tree(
        &mut self,
        target: &mut Target,
        folder: &Path,
        depth: u32,
        follow: bool,
    ) -> Result<(), String> {
        if target.watching.iter().any(|w| w == folder) {
            return Ok(());
        }
        self.add_watch(folder)?;
        target.watching.push(folder.to_path_buf());
        if depth == 0 {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => follow && path.is_dir(),
                _ => false,
            };
            if is_dir {
                self.watch_tree(target, &path, depth - 1, follow)?;
            }
        }
        Ok(())
    }

    /// Drops the watches on `folder` and below.
    fn unwatch_below(&mut self, target: &mut Target, folder: &Path) {
        let (gone, kept): (Vec<PathBuf>, Vec<PathBuf>) = target
            .watching
            .drain(..)
            .partition(|w| w.starts_with(folder));
        target.watching = kept;
        for path in gone {
            self.remove_watch(&path);
        }
    }

    fn uninstall(&mut self, target: &mut Target) {
        for path in std::mem::take(&mut target.watching) {
            self.remove_watch(&path);
        }
        target.waiting_on = None;
    }
}
