//! The host side of every import a provider component links, one file per
//! interface; each checks the calling instance's grants itself.

pub(crate) mod denied;
pub(crate) mod files;
pub(crate) mod host;
pub(crate) mod http;
pub(crate) mod wasi;

use super::refusals::Refusals;
use std::time::Instant;
use wasmtime::component::ResourceTable;

/// What the WASI calls skillhost replaces (`denied.rs`, `wasi.rs`) need of
/// a store: where refusals are noted, its resource table, and the call's
/// deadline. `state.rs` provides it, so these files never see the store.
pub(crate) trait Shadowing: Send + 'static {
    /// Where refused attempts are noted for the provider's diagnostics.
    fn refusals(&self) -> &Refusals;
    /// The store's resource table (descriptors, pollables).
    fn table(&mut self) -> &mut ResourceTable;
    /// When the call in progress must end.
    fn deadline(&self) -> Instant;
}
