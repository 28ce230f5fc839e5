//! The idle runner: a curator review runs only when it is not paused, no
//! process has reported activity for [`RunnerConfig::min_idle`], and the
//! last review (by any process) is at least [`RunnerConfig::interval`] old.
//! The decision reads everything from the store, so `curate --pause` in one
//! process pauses the runners of all the others, and it reads the time from
//! the store's clock, so tests move a clock instead of sleeping.
//!
//! A review records the curator's report in the store; it never moves
//! files (that is `curate --archive`, a person's decision).

use super::curator::{Report, review};
use super::error::Error;
use super::store::{RunnerState, UsageStore};
use skillhost::model::Catalog;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

/// When reviews may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunnerConfig {
    /// Least time between two reviews (default seven days).
    pub interval: Duration,
    /// Least time since the latest activity heartbeat (default two hours).
    pub min_idle: Duration,
    /// How often a running runner looks (default one hour).
    pub check_every: Duration,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            interval: Duration::from_secs(7 * 24 * 3600),
            min_idle: Duration::from_secs(2 * 3600),
            check_every: Duration::from_secs(3600),
        }
    }
}

/// What the runner decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// `curate --pause` is in effect.
    Paused,
    /// There was activity too recently.
    Busy {
        /// Time since the latest heartbeat.
        idle: Duration,
        /// The idle time required.
        needed: Duration,
    },
    /// The last review is too recent.
    TooSoon {
        /// Time since the last review.
        since: Duration,
        /// The interval required.
        interval: Duration,
    },
    /// A review should run now.
    Due,
}

/// The decision for `state` at `now`. A clock that went backwards counts
/// as no time having passed.
pub fn decide(state: &RunnerState, now: SystemTime, config: &RunnerConfig) -> Decision {
    let since = |at: SystemTime| now.duration_since(at).unwrap_or(Duration::ZERO);
    if state.paused {
        return Decision::Paused;
    }
    if let Some(idle) = state.last_activity.map(since)
        && idle < config.min_idle
    {
        return Decision::Busy {
            idle,
            needed: config.min_idle,
        };
    }
    if let Some(elapsed) = state.last_review.map(since)
        && elapsed < config.interval
    {
        return Decision::TooSoon {
            since: elapsed,
            interval: config.interval,
        };
    }
    Decision::Due
}

/// What one check did.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The decision.
    pub decision: Decision,
    /// The report, when a review ran.
    pub report: Option<Report>,
}

/// Reviews a catalog when idle and due.
#[derive(Debug)]
pub struct Runner {
    store: Arc<UsageStore>,
    roots: Vec<PathBuf>,
    config: RunnerConfig,
}

impl Runner {
    /// A runner over `store`, assessing skills of the writable `roots`
    /// (see [`writable_roots`](super::curator::writable_roots)).
    pub fn new(store: Arc<UsageStore>, roots: Vec<PathBuf>, config: RunnerConfig) -> Self {
        Runner {
            store,
            roots,
            config,
        }
    }

    /// The store it records into.
    pub fn store(&self) -> &Arc<UsageStore> {
        &self.store
    }

    /// What it would do now.
    pub fn decide(&self) -> Result<Decision, Error> {
        let state = self.store.runner_state()?;
        Ok(decide(&state, self.store.now(), &self.config))
    }

    /// Decides, and reviews `catalog` when due. When another process
    /// reviewed in between, nothing is stored and the decision says so.
    pub fn check(&self, catalog: &Catalog) -> Result<Checked, Error> {
        let decision = self.decide()?;
        if decision != Decision::Due {
            return Ok(Checked {
                decision,
                report: None,
            });
        }
        let report = review(&self.store, catalog, &self.roots)?;
        let stored =
            self.store
                .record_review("runner", &report.to_json(), Some(self.config.interval))?;
        if !stored {
            return Ok(Checked {
                decision: self.decide()?,
                report: None,
            });
        }
        tracing::info!(
            skills = report.skills.len(),
            candidates = report.candidates().count(),
            "usage review recorded"
        );
        Ok(Checked {
            decision,
            report: Some(report),
        })
    }

    /// Checks now and then every [`RunnerConfig::check_every`] until `stop`
    /// receives or is dropped. Failures are logged and the loop goes on.
    pub fn run(&self, catalog: &dyn Fn() -> Arc<Catalog>, stop: &Receiver<()>) {
        loop {
            if let Err(e) = self.check(&catalog()) {
                tracing::warn!("usage review: {e}");
            }
            match stop.recv_timeout(self.config.check_every) {
                Err(RecvTimeoutError::Timeout) => {}
                Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    /// [`Runner::run`] on its own thread, until the handle is dropped.
    pub fn spawn(self, catalog: impl Fn() -> Arc<Catalog> + Send + 'static) -> RunnerHandle {
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("skillhost-usage-runner".into())
            .spawn(move || self.run(&catalog, &stopped))
            .ok();
        RunnerHandle {
            stop: Some(stop),
            thread,
        }
    }
}

/// A runner on its own thread; dropping it stops the thread and waits for it.
#[derive(Debug)]
pub struct RunnerHandle {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for RunnerHandle {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::days;
    use std::time::UNIX_EPOCH;

    const HOUR: Duration = Duration::from_secs(3600);

    fn state(paused: bool, activity: Option<f64>, review: Option<f64>) -> RunnerState {
        let now = UNIX_EPOCH + days(100.0);
        RunnerState {
            paused,
            last_activity: activity.map(|ago| now - days(ago)),
            last_review: review.map(|ago| now - days(ago)),
        }
    }

    #[test]
    fn paused_busy_too_soon_and_due() {
        let now = UNIX_EPOCH + days(100.0);
        let config = RunnerConfig::default();
        assert_eq!(
            decide(&state(true, None, None), now, &config),
            Decision::Paused
        );
        assert_eq!(
            decide(&state(false, Some(1.0 / 24.0), Some(30.0)), now, &config),
            Decision::Busy {
                idle: HOUR,
                needed: 2 * HOUR
            }
        );
        assert_eq!(
            decide(&state(false, Some(1.0), Some(6.0)), now, &config),
            Decision::TooSoon {
                since: days(6.0),
                interval: days(7.0)
            }
        );
        assert_eq!(
            decide(&state(false, Some(1.0), Some(7.0)), now, &config),
            Decision::Due
        );
        assert_eq!(
            decide(&state(false, None, None), now, &config),
            Decision::Due,
            "never active, never reviewed"
        );
    }

    #[test]
    fn paused_wins_over_everything_and_a_clock_gone_back_is_busy() {
        let now = UNIX_EPOCH + days(100.0);
        let config = RunnerConfig::default();
        assert_eq!(
            decide(&state(true, Some(0.0), Some(0.0)), now, &config),
            Decision::Paused
        );
        let future = RunnerState {
            paused: false,
            last_activity: Some(now + HOUR),
            last_review: None,
        };
        assert!(matches!(
            decide(&future, now, &config),
            Decision::Busy { idle, .. } if idle == Duration::ZERO
        ));
    }
}
