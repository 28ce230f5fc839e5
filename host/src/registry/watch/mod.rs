//! Host-side watching on behalf of providers.
//!
//! Providers are sandboxed and cannot watch files; they ask the host
//! through the `watch` import, and only inside their grants. One `notify`
//! watcher (native events or polling) serves every provider. Events are
//! routed to the providers whose watch scope contains them (`routing`),
//! collected per provider until the burst is over (a quiet period,
//! capped), and delivered in one `on-change` call: the provider decides
//! whether its catalog changed.
//!
//! A watch target that does not exist yet is watched from its nearest
//! existing ancestor, one path segment at a time; when it appears the real
//! watch takes over, and when it is deleted the ancestor watch comes back.
//! A failure to watch makes that provider's view incomplete and is retried
//! with backoff; on recovery the provider rescans, since changes may have
//! been missed. The watcher's lock is never held while a provider runs or
//! while a folder is walked: deliveries happen after it is released, a
//! provider's watch targets are read without waiting for its instance, and
//! what a target needs watched is planned (`plan`) outside the lock and
//! applied under it. When the watch on a missing target's ancestor moves
//! down, what appeared meanwhile is looked at again, so a root created all
//! at once (`mkdir -p`, `git clone`) is never missed. Nor is a change made
//! after a provider began to read a target and before its watches were in
//! place: once they are, what changed since is looked for (`catch_up`).

mod backend;
mod catch_up;
mod jobs;
mod options;
mod plan;
mod routing;
mod watched;

pub use options::{WatchMode, WatchOptions};

use super::listeners::{Listeners, Subscription};
use crate::provider::{ChangeKind, Provider};
use crate::sandbox::WatchTarget;
use crate::sync::lock;
use backend::{Backend, Target, is_watchable_dir};
use jobs::{Job, Work};
use routing::{Route, TargetView, changes, route};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use watched::{Changes, Watched};

/// The host's watcher for every provider of a registry.
pub struct Watcher {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    options: WatchOptions,
    state: Mutex<State>,
    tx: Sender<Msg>,
    delivered: Arc<Listeners<Delivery>>,
}

/// One burst delivered to a provider, after it was told.
pub(crate) struct Delivery {
    /// The provider told (identity, not id: a shared watcher serves
    /// registries whose providers may share ids).
    pub(crate) provider: Arc<Provider>,
    /// The host paths, with what happened to each.
    pub(crate) changes: Vec<(PathBuf, ChangeKind)>,
}

enum Msg {
    Event(notify::Result<notify::Event>),
    /// Newly watched targets to catch up on (see `catch_up`).
    CatchUp(Vec<jobs::CatchUp>),
    Wake,
    Stop,
}

struct State {
    backend: Backend,
    providers: Vec<Watched>,
    clock: u64,
    stopped: bool,
}

impl State {
    fn index_of(&self, provider: &Arc<Provider>) -> Option<usize> {
        self.providers
            .iter()
            .position(|w| Arc::ptr_eq(&w.provider, provider))
    }
}

impl Watcher {
    /// Starts the watcher and its event thread.
    pub fn start(options: WatchOptions) -> Result<Watcher, crate::Error> {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            options,
            state: Mutex::new(State {
                backend: Backend::default(),
                providers: Vec::new(),
                clock: 0,
                stopped: false,
            }),
            tx,
            delivered: Arc::default(),
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
    /// watch requests) and marks it in use now, for the least-recently-used
    /// bound on project watchers. Returns true when it had been evicted: it
    /// is watched again and must rescan, since changes may have been missed
    /// meanwhile.
    pub fn observe(&self, provider: &Arc<Provider>, project: bool) -> bool {
        // Read before taking the lock: the watcher never waits on a
        // provider while event routing for everyone else waits on it.
        let wanted = provider.watch_targets();
        let mut state = lock(&self.shared.state);
        if state.stopped {
            return false;
        }
        state.clock += 1;
        let now = state.clock;
        let (index, new) = match state.index_of(provider) {
            Some(i) => (i, false),
            None => {
                let watched = Watched::new(provider.clone(), project, now, &self.shared.options);
                state.providers.push(watched);
                (state.providers.len() - 1, true)
            }
        };
        state.providers[index].last_observed = now;
        let was_evicted = std::mem::replace(&mut state.providers[index].evicted, false);
        let jobs = self.shared.sync_targets(&mut state, index, wanted);
        let evicted_other = self.shared.evict_beyond_cap(&mut state);
        drop(state);
        // A session observes every turn; the watcher thread is woken only
        // when its schedule may have changed, not on each of those turns.
        let reschedule = new || was_evicted || evicted_other || !jobs.is_empty();
        self.shared.run_jobs(jobs);
        if reschedule {
            let _ = self.shared.tx.send(Msg::Wake);
        }
        was_evicted
    }

    /// Brings the watches of a registered provider in line with its
    /// current requests, without counting as a use (the bound on project
    /// watchers goes by [`Watcher::observe`]). An evicted or unknown
    /// provider is left alone: it is watched again only when observed.
    pub(crate) fn sync(&self, provider: &Arc<Provider>) {
        let wanted = provider.watch_targets();
        let mut state = lock(&self.shared.state);
        if state.stopped {
            return;
        }
        let Some(index) = state.index_of(provider) else {
            return;
        };
        let jobs = self.shared.sync_targets(&mut state, index, wanted);
        drop(state);
        if !jobs.is_empty() {
            self.shared.run_jobs(jobs);
            let _ = self.shared.tx.send(Msg::Wake);
        }
    }

    /// Why this provider's changes may be missed right now, if they may.
    pub fn failure(&self, provider: &Arc<Provider>) -> Option<String> {
        let state = lock(&self.shared.state);
        state
            .index_of(provider)
            .and_then(|i| state.providers[i].failure.clone())
    }

    /// Whether the provider's watches were evicted (it is not watched now).
    pub fn is_evicted(&self, provider: &Arc<Provider>) -> bool {
        let state = lock(&self.shared.state);
        state
            .index_of(provider)
            .is_some_and(|i| state.providers[i].evicted)
    }

    /// How many `on-change` deliveries this provider received.
    pub fn deliveries(&self, provider: &Arc<Provider>) -> u64 {
        let state = lock(&self.shared.state);
        state
            .index_of(provider)
            .map_or(0, |i| state.providers[i].deliveries)
    }

    /// Calls `listener` with the provider's id and the host paths of every
    /// burst delivered to a provider, after the provider was told (so a
    /// snapshot taken then sees what it made of them), until the returned
    /// subscription is dropped. It runs on the watcher's thread: it must
    /// only record or send, never wait.
    pub fn on_delivery(
        &self,
        listener: impl Fn(&str, &[(PathBuf, ChangeKind)]) + Send + Sync + 'static,
    ) -> Subscription {
        self.shared
            .delivered
            .subscribe(move |d: &Delivery| listener(d.provider.id(), &d.changes))
    }

    /// The same, with the provider itself, for the registry's forwarding.
    pub(crate) fn on_delivery_to(
        &self,
        listener: impl Fn(&Delivery) + Send + Sync + 'static,
    ) -> Subscription {
        self.shared.delivered.subscribe(listener)
    }

    /// Stops watching `provider`.
    pub fn forget(&self, provider: &Arc<Provider>) {
        let mut state = lock(&self.shared.state);
        if let Some(index) = state.index_of(provider) {
            let mut watched = state.providers.remove(index);
            for target in &mut watched.targets {
                state.backend.uninstall(target);
            }
        }
    }

    /// Closes every watch and stops the event thread; late events do nothing.
    pub fn dispose(&self) {
        {
            let mut state = lock(&self.shared.state);
            state.stopped = true;
            state.providers.clear();
            state.backend.stop();
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
        state.backend.start(&self.options, handler)
    }

    /// Brings a provider's targets in line with its current watch requests:
    /// targets no longer wanted are dropped now; new ones are returned as
    /// jobs, to be planned without the lock.
    fn sync_targets(&self, state: &mut State, index: usize, wanted: Vec<WatchTarget>) -> Vec<Job> {
        if state.providers[index].evicted {
            return Vec::new();
        }
        let State {
            backend, providers, ..
        } = state;
        let watched = &mut providers[index];
        watched.targets.retain_mut(|t| {
            let keep = wanted
                .iter()
                .any(|w| w.guest == t.guest && w.host == t.host && w.depth == t.depth);
            if !keep {
                backend.uninstall(t);
            }
            keep
        });
        let mut jobs = Vec::new();
        for w in wanted {
            if watched.targets.iter().any(|t| t.guest == w.guest) {
                continue;
            }
            let target = Target::new(w.guest, w.host, w.depth, w.within);
            jobs.push(Job::first_install(&watched.provider, &target, w.since));
            watched.targets.push(target);
        }
        jobs
    }

    /// Evicts the least recently used project watchers beyond the cap;
    /// returns whether any was.
    fn evict_beyond_cap(&self, state: &mut State) -> bool {
        let mut evicted = false;
        loop {
            let active: Vec<usize> = (0..state.providers.len())
                .filter(|&i| state.providers[i].project && !state.providers[i].evicted)
                .collect();
            if active.len() <= self.options.max_project_watchers {
                return evicted;
            }
            let Some(&oldest) = active
                .iter()
                .min_by_key(|&&i| state.providers[i].last_observed)
            else {
                return evicted;
            };
            let State {
                backend, providers, ..
            } = &mut *state;
            let watched = &mut providers[oldest];
            for target in &mut watched.targets {
                backend.uninstall(target);
            }
            watched.targets.clear();
            tracing::debug!(provider = watched.provider.id(), "project watcher evicted");
            watched.evicted = true;
            watched.drop_pending();
            evicted = true;
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
                Ok(Msg::CatchUp(targets)) => self.catch_up(targets),
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
            .flat_map(|w| [w.burst_due_at(&self.options), w.retry_at])
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
                for watched in &mut state.providers {
                    let concerned = e.paths.is_empty()
                        || watched
                            .targets
                            .iter()
                            .any(|t| e.paths.iter().any(|p| p.starts_with(&t.host)));
                    if concerned {
                        watched.fail(reason.clone(), &self.options);
                    }
                }
                return;
            }
        };
        if event.need_rescan() {
            for watched in &mut state.providers {
                let roots: Vec<PathBuf> = watched.targets.iter().map(|t| t.host.clone()).collect();
                for root in roots {
                    watched.queue(root, ChangeKind::Rescan);
                }
            }
            return;
        }
        let mut jobs = Vec::new();
        for (path, kind) in changes(&event) {
            jobs.extend(self.route(&mut state, &path, kind));
        }
        drop(state);
        self.run_jobs(jobs);
    }

    /// Sends one change to every provider whose scope holds it, keeping the
    /// OS watches in step (new subfolders, vanished and appearing targets);
    /// what needs a look at the filesystem comes back as jobs.
    fn route(&self, state: &mut State, path: &Path, kind: ChangeKind) -> Vec<Job> {
        let follow = self.options.follow_symlinks;
        let State {
            backend, providers, ..
        } = state;
        let mut jobs = Vec::new();
        for watched in providers.iter_mut().filter(|w| !w.evicted) {
            let mut queued: Changes = Vec::new();
            for target in &mut watched.targets {
                let view = TargetView {
                    host: &target.host,
                    depth: target.depth,
                    waiting_on: target.waiting_on.as_deref(),
                };
                let decision = route(
                    &view,
                    path,
                    kind,
                    || target.host.is_dir(),
                    || is_watchable_dir(path, follow),
                );
                match decision {
                    Route::Ignore => {}
                    Route::StepTowards => jobs.push(Job::install(&watched.provider, target)),
                    Route::TargetGone => {
                        jobs.push(Job::install(&watched.provider, target));
                        queued.push((target.host.clone(), ChangeKind::Removed));
                    }
                    Route::Deliver => queued.push((path.to_path_buf(), kind)),
                    Route::DeliverAndWatch { remaining } => {
                        queued.push((path.to_path_buf(), kind));
                        let mut job = Job::install(&watched.provider, target);
                        job.work = Work::Tree {
                            folder: path.to_path_buf(),
                            depth: remaining,
                        };
                        jobs.push(job);
                    }
                    Route::DeliverAndUnwatch => {
                        queued.push((path.to_path_buf(), kind));
                        backend.unwatch_below(target, path);
                    }
                }
            }
            for (path, kind) in queued {
                watched.queue(path, kind);
            }
        }
        jobs
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
        if !state.backend.is_running()
            && let Err(e) = self.start_backend(&mut state)
        {
            for i in due {
                state.providers[i].fail(
                    format!("the file watcher could not start: {e}"),
                    &self.options,
                );
            }
            return;
        }
        let mut jobs = Vec::new();
        let mut retried = Vec::new();
        let State {
            backend, providers, ..
        } = &mut *state;
        for i in due {
            let watched = &mut providers[i];
            watched.retry_at = None;
            retried.push(watched.provider.clone());
            for target in &mut watched.targets {
                backend.uninstall(target);
                jobs.push(Job::install(&watched.provider, target));
            }
        }
        drop(state);
        self.run_jobs(jobs);
        // A retry that failed again set a new retry time; the others
        // recovered.
        let mut state = lock(&self.state);
        for provider in retried {
            let Some(i) = state.index_of(&provider) else {
                continue;
            };
            let watched = &mut state.providers[i];
            if watched.retry_at.is_none() && watched.failure.is_some() {
                tracing::info!(provider = watched.provider.id(), "watching recovered");
                watched.failure = None;
                // Changes may have been missed: rescan.
                watched.provider.invalidate();
            }
        }
    }

    /// Delivers every burst that is over, outside the state lock (the
    /// provider runs guest code).
    fn deliver_due(&self) {
        let now = Instant::now();
        let due: Vec<(Arc<Provider>, Changes)> = {
            let mut state = lock(&self.state);
            state
                .providers
                .iter_mut()
                .filter_map(|w| Some((w.provider.clone(), w.take_due(now, &self.options)?)))
                .collect()
        };
        for (provider, events) in due {
            if let Err(e) = provider.on_change(&events) {
                tracing::warn!(provider = provider.id(), error = %e, "delivering changes failed");
            }
            self.delivered.notify(&Delivery {
                provider,
                changes: events,
            });
        }
    }
}
