//! What a provider is made of, and what it is told.

use crate::model::Scope;
use crate::provider::boundary::Caps;
use crate::sandbox::{Limits, LoadedComponent, VirtualRoot};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Everything needed to run one provider.
#[derive(Clone)]
pub struct ProviderSpec {
    /// Unique id in the registry (e.g. `local:/home/me/.claude/skills`).
    pub id: String,
    /// Where its skills come from.
    pub scope: Scope,
    /// The compiled component.
    pub component: Arc<LoadedComponent>,
    /// Roots granted read-only, highest precedence first.
    pub roots: Vec<PathBuf>,
    /// Provider-specific settings passed to `init`.
    pub settings: Vec<(String, String)>,
    /// HTTP origins it may reach (`scheme://host:port`).
    pub origins: Vec<String>,
    /// Guest path prefixes that only name where its skills come from
    /// (`/remote` → the mirror's URL); nothing is opened there.
    pub virtual_roots: Vec<VirtualRoot>,
    /// Set for remote sources: its skills are listed as `namespace:name`,
    /// so they never shadow, nor are shadowed by, another source's.
    pub namespace: Option<String>,
    /// How often the host asks it to look for changes itself (a remote
    /// index), while the registry is watching.
    pub poll: Option<Duration>,
    /// Memory and time limits.
    pub limits: Limits,
    /// Caps on what it may return.
    pub caps: Caps,
}

/// What a change event says happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Something appeared.
    Created,
    /// Something changed.
    Modified,
    /// Something went away.
    Removed,
    /// Track was lost: rescan.
    Rescan,
}

impl ProviderSpec {
    /// A provider granted nothing: no roots, no origins, no settings, with
    /// the default limits and caps. Grants are added field by field.
    pub fn new(id: impl Into<String>, scope: Scope, component: Arc<LoadedComponent>) -> Self {
        ProviderSpec {
            id: id.into(),
            scope,
            component,
            roots: Vec::new(),
            settings: Vec::new(),
            origins: Vec::new(),
            virtual_roots: Vec::new(),
            namespace: None,
            poll: None,
            limits: Limits::default(),
            caps: Caps::default(),
        }
    }
}
