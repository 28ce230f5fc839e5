//! One provider as the watcher serves it: its targets, the burst pending
//! for it, and its failure and eviction state.

use super::backend::Target;
use super::options::WatchOptions;
use super::routing::merge_into;
use crate::clock::later;
use crate::provider::{ChangeKind, Provider};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Changes gathered for one provider, by host path.
pub(super) type Changes = Vec<(PathBuf, ChangeKind)>;

/// One provider's watch scope and what is pending for it.
pub(super) struct Watched {
    pub(super) provider: Arc<Provider>,
    pub(super) project: bool,
    pub(super) targets: Vec<Target>,
    pub(super) last_observed: u64,
    pub(super) evicted: bool,
    pub(super) failure: Option<String>,
    pub(super) backoff: Duration,
    pub(super) retry_at: Option<Instant>,
    pub(super) pending: Changes,
    pub(super) first_event: Option<Instant>,
    pub(super) last_event: Option<Instant>,
    pub(super) deliveries: u64,
}

impl Watched {
    pub(super) fn new(
        provider: Arc<Provider>,
        project: bool,
        now: u64,
        options: &WatchOptions,
    ) -> Self {
        Watched {
            provider,
            project,
            targets: Vec::new(),
            last_observed: now,
            evicted: false,
            failure: None,
            backoff: options.retry_initial,
            retry_at: None,
            pending: Vec::new(),
            first_event: None,
            last_event: None,
            deliveries: 0,
        }
    }

    /// Adds a change to the pending burst.
    pub(super) fn queue(&mut self, path: PathBuf, kind: ChangeKind) {
        let now = Instant::now();
        self.first_event.get_or_insert(now);
        self.last_event = Some(now);
        merge_into(&mut self.pending, path, kind);
    }

    /// When the pending burst is due: quiet for the window, or overdue.
    pub(super) fn burst_due_at(&self, options: &WatchOptions) -> Option<Instant> {
        let (first, last) = self.first_event.zip(self.last_event)?;
        Some(later(last, options.quiet()).min(later(first, options.overdue())))
    }

    /// Takes the pending burst if it is due at `now`: quiet (and, with a
    /// stability wait, every written file settled), or overdue.
    pub(super) fn take_due(&mut self, now: Instant, options: &WatchOptions) -> Option<Changes> {
        let (first, last) = self.first_event.zip(self.last_event)?;
        let quiet = now >= later(last, options.window);
        let overdue = now >= later(first, options.overdue());
        let settled = match options.stability {
            Some(d) if !overdue => self.pending.iter().all(|(p, _)| settled_for(p, d)),
            _ => true,
        };
        if !((quiet && settled) || overdue) {
            return None;
        }
        self.first_event = None;
        self.last_event = None;
        self.deliveries += 1;
        Some(std::mem::take(&mut self.pending))
    }

    /// Forgets what was pending (the watches were evicted).
    pub(super) fn drop_pending(&mut self) {
        self.pending.clear();
        self.first_event = None;
        self.last_event = None;
    }

    /// Records a failure to watch; the retry backs off while it repeats.
    pub(super) fn fail(&mut self, reason: String, options: &WatchOptions) {
        if self.failure.is_none() {
            tracing::warn!(provider = self.provider.id(), %reason, "watching failed; retrying");
            self.backoff = options.retry_initial;
            // The registry must learn the view is no longer complete.
            self.provider.invalidate();
        } else {
            self.backoff = self.backoff.saturating_mul(2).min(options.retry_max);
        }
        self.failure = Some(reason);
        self.retry_at = Some(crate::clock::after(self.backoff));
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
