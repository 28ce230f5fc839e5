//! What a conformance run grants the provider and how long it may take.

use std::path::PathBuf;
use std::time::Duration;

/// How a component is checked.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Folders granted to the provider, read-only. Empty: the kit lays out
    /// its own fixture tree in a temporary folder and grants that, and the
    /// checks that need known files (the fixture snapshot, deltas,
    /// `on-change`) run; given: the provider reads these, which the kit
    /// never changes, and those checks are skipped.
    pub roots: Vec<PathBuf>,
    /// Settings passed to the provider's `init`, in order.
    pub settings: Vec<(String, String)>,
    /// HTTP origins granted (`scheme://host:port`). The first-party remote
    /// provider is granted its `url` setting's origin without this.
    pub origins: Vec<String>,
    /// Time limits.
    pub deadlines: Deadlines,
    /// Linear memory cap in MiB (none: what the host gives this provider).
    pub memory_mib: Option<u64>,
    /// Where compiled components are cached (none: the host's default
    /// folder).
    pub cache_dir: Option<PathBuf>,
}

/// Time limits of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// The deadline the sandbox enforces on every call (none: what the
    /// host gives this provider, 5 s, or 15 s for the remote provider).
    pub limit: Option<Duration>,
    /// Longest `init` may take and pass.
    pub init: Duration,
    /// Longest any other call may take and pass: "well inside" the limit.
    pub call: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            limit: None,
            init: Duration::from_secs(1),
            call: Duration::from_secs(1),
        }
    }
}

impl Options {
    /// These options with `key = value` added to the settings.
    pub fn setting(mut self, key: &str, value: &str) -> Self {
        self.settings.push((key.to_string(), value.to_string()));
        self
    }

    /// These options with `root` granted.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.roots.push(root.into());
        self
    }
}
