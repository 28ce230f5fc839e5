//! Watch installation that needs a look at the filesystem first: each job
//! is planned without the watcher's lock (walking folders can be slow) and
//! applied with it, so OS events are never held up by a walk.

use super::backend::Target;
use super::plan::{self, Plan, Scope};
use super::{Shared, State};
use crate::provider::{ChangeKind, Provider};
use crate::sync::lock;
use std::path::PathBuf;
use std::sync::Arc;

/// Installing watches that needs a look at the filesystem first: planned
/// without the lock, applied with it.
pub(super) struct Job {
    pub(super) provider: Arc<Provider>,
    pub(super) guest: String,
    pub(super) host: PathBuf,
    pub(super) within: Arc<[PathBuf]>,
    pub(super) work: Work,
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
        for _ in 0..MAX_ROUNDS {
            if jobs.is_empty() {
                return;
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
                        let result = backend.apply(target, plan);
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
    }
}
