//! How the host watches: native events or polling, the coalescing window,
//! write stability, symlinks, and the bound on project watchers.

use std::time::Duration;

/// How changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// The operating system's notifications (inotify, FSEvents, ...).
    Native,
    /// Scanning the watched folders at this interval.
    Poll(Duration),
}

/// Watching options.
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
    /// Most project providers watched at once; the least recently used
    /// (registered, or resumed by `Registry::resume_watching`) is evicted,
    /// and rescans when resumed.
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

impl WatchOptions {
    /// How long a burst must be quiet before it is delivered.
    pub(crate) fn quiet(&self) -> Duration {
        self.window.max(self.stability.unwrap_or_default())
    }

    /// How long after its first event a burst is delivered in any case.
    pub(crate) fn overdue(&self) -> Duration {
        self.max_delay
            .max(self.stability.unwrap_or_default().saturating_mul(10))
    }
}
