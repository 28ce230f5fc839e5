//! A provider's view: what it contributes to the catalog now, as plain
//! data. How a view is made from an observation is `observe.rs`.

use crate::model::{Diagnostic, Skill};
use std::sync::Arc;

/// What one provider currently contributes to the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderView {
    /// Its valid skills, in its order.
    pub skills: Vec<Arc<Skill>>,
    /// Its diagnostics, and the host's about it.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether it saw everything.
    pub complete: bool,
    /// Whether `skills` come from a complete observation, now or earlier
    /// (an incomplete provider shows its last complete view).
    pub seen_complete: bool,
    /// Whether the provider has never given a complete view and is still
    /// within its grace: a catalog published now could drop its skills
    /// (a root mid-checkout at start), so publication waits.
    pub holds_back: bool,
    /// The host folders its grant holds (canonical roots and linked skill
    /// folders), so that when two providers claim one file, the one whose
    /// grant holds it most closely keeps it.
    pub granted: Arc<[std::path::PathBuf]>,
}

/// The last complete view and the current one.
#[derive(Debug, Default)]
pub(crate) struct Views {
    pub(super) last_complete: Option<Arc<ProviderView>>,
    pub(super) current: Option<Arc<ProviderView>>,
}
