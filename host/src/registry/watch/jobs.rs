//! Watch installation that needs a look at the filesystem first: each job
//! is planned without the watcher's lock (walking folders can be slow) and
//! applied with it, so OS events are never held up by a walk.

use super::backend::Target;
use super::plan::{self, Plan, Scope};
use super::watched::Changes;
use super::{Shared, State, catch_up};
use crate::provider::{ChangeKind, Provider};
use crate::sync::lock;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// Installing watches that needs a look at the filesystem first: planned
/// without the lock, applied with it.
pub(super) struct Job {
    pub(super) provider: Arc<Provider>,
    pub(super) guest: String,
    pub(super) host: PathBuf,
    pub(super) within: Arc<[PathBuf]>,
    pub(super) work: Work,
    /// A target's first installation: once its watches are in place, what
    /// changed since this moment is reported (`catch_up`).
    pub(super) catch_up: Option<SystemTime>,
}

/// A target whose watches were just put in place, to be caught up on.
pub(super) struct CatchUp {
    provider: Arc<Provider>,
    folders: Vec<PathBuf>,
    since: SystemTime,
}

pub(super) enum Work {
    /// (Re)install the whole target.
    Install { depth: u32 },
    /// Watch a folder that appeared inside the target, `depth` levels deep.
    Tree { folder: PathBuf, depth: u32 },
}

/// Most rounds of re-planning after an ancestor watch went stale (one per
/// path segment that appeared meanwhile).
const MAX_ROUNDS: usize = 64;

impl Job {
    pub(super) fn install(provider: &Arc<Provider>, target: &Target) -> Job {
        Job {
            provider: provider.clone(),
            guest: target.guest.clone(),
            host: target.host.clone(),
            within: target.within.clone(),
            work: Work::Install {
                depth: target.depth,
            },
            catch_up: None,
        }
    }

    /// The first installation of a target the provider has just asked for.
    pub(super) fn first_install(
        provider: &Arc<Provider>,
        target: &Target,
        since: SystemTime,
    ) -> Job {
        Job {
            catch_up: Some(since),
            ..Job::install(provider, target)
        }
    }

    fn plan(&self, follow: bool) -> Plan {
        let scope = Scope {
            follow,
            within: &self.within,
        };
        match &self.work {
            Work::Install { depth } => plan::install(&self.host, *depth, &scope),
            Work::Tree { folder, depth } => plan::tree(folder, *depth, &scope),
        }
    }
}

impl Shared {
    /// Plans each job without the lock, applies it with the lock, and goes
    /// round again for targets whose ancestor watch went stale meanwhile
    /// (the next segment appeared while the watch was being placed).
    pub(super) fn run_jobs(&self, mut jobs: Vec<Job>) {
        let follow = self.options.follow_symlinks;
        let mut caught_up = Vec::new();
        for _ in 0..MAX_ROUNDS {
            if jobs.is_empty() {
                break;
            }
            let planned: Vec<(Job, Plan)> = jobs
                .into_iter()
                .map(|job| {
                    let plan = job.plan(follow);
                    (job, plan)
                })
                .collect();
            let mut state = lock(&self.state);
            if state.stopped {
                return;
            }
            jobs = Vec::new();
            let State {
                backend, providers, ..
            } = &mut *state;
            for (job, plan) in planned {
                let Some(watched) = providers
                    .iter_mut()
                    .find(|w| Arc::ptr_eq(&w.provider, &job.provider) && !w.evicted)
                else {
                    continue;
                };
                let Some(target) = watched.targets.iter_mut().find(|t| t.guest == job.guest) else {
                    continue;
                };
                let mut appeared = None;
                let result = match job.work {
                    Work::Install { .. } => {
                        let was_waiting = target.waiting_on.is_some();
                        let folders = match (&plan, job.catch_up) {
                            (Plan::Tree { folders, .. }, Some(since)) => {
                                Some((folders.clone(), since))
                            }
                            _ => None,
                        };
                        let result = backend.apply(target, plan);
                        if let (Some((folders, since)), Ok(())) = (folders, &result)
                            && target.waiting_on.is_none()
                        {
                            caught_up.push(CatchUp {
                                provider: job.provider.clone(),
                                folders,
                                since,
                            });
                        }
                        if was_waiting && target.waiting_on.is_none() && result.is_ok() {
                            appeared = Some(target.host.clone());
                        }
                        if target.ancestor_is_stale() {
                            jobs.push(Job::install(&watched.provider, target));
                        }
                        result
                    }
                    Work::Tree { .. } => backend.add_folders(target, plan),
                };
                // The missing target appeared: everything in it is new to
                // the provider.
                if let Some(host) = appeared {
                    watched.queue(host, ChangeKind::Created);
                }
                if let Err(e) = result {
                    watched.fail(e, &self.options);
                }
            }
        }
        // Looking costs about as much as planning did; the watcher thread
        // does it, not the caller (often the one waiting for a snapshot).
        if !caught_up.is_empty() {
            let _ = self.tx.send(super::Msg::CatchUp(caught_up));
        }
    }

    /// Reports what changed in each newly watched target before its
    /// watches were in place: looked at without the lock, queued with it
    /// (delivered when due, by the watcher thread that calls this).
    pub(super) fn catch_up(&self, targets: Vec<CatchUp>) {
        let found: Vec<(Arc<Provider>, Changes)> = targets
            .into_iter()
            .map(|t| (t.provider, catch_up::changed_since(&t.folders, t.since)))
            .filter(|(_, changes)| !changes.is_empty())
            .collect();
        if found.is_empty() {
            return;
        }
        let mut state = lock(&self.state);
        for (provider, changes) in found {
            let Some(i) = state.index_of(&provider) else {
                continue;
            };
            let watched = &mut state.providers[i];
            if watched.evicted {
                continue;
            }
            for (path, kind) in changes {
                watched.queue(path, kind);
            }
        }
    }
}
