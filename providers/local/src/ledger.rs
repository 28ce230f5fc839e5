//! What the provider owes the host between calls: the changes since each
//! observation it sent, and the names its skills are served under. Every
//! entry's change of state goes through both, so neither can drift from
//! the entries.

use crate::names::Names;
use skillhost_guest_sdk::delta::Changes;

/// The changes not yet observed and the names served.
pub struct Ledger {
    /// What changed since each observation.
    pub changes: Changes,
    /// The names served, unique.
    pub names: Names,
}

impl Ledger {
    /// Nothing changed, nothing served.
    pub fn new() -> Self {
        Ledger {
            changes: Changes::new(),
            names: Names::default(),
        }
    }
}
