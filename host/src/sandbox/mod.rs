//! The sandbox: wasmtime, and everything a provider component may touch.
//!
//! One engine per process (epoch interruption, compile cache, guest memories
//! kept wiped from ended instances for the next), one store per
//! provider instance with a memory cap and a deadline on every call, and one
//! file per host import under `imports/`, each checking the calling
//! instance's grants. The sandbox knows nothing of providers, registries or
//! catalogs: what an instance reports upward (an invalidation, its watch
//! requests) goes through the `Upcalls` it was started with, which only
//! record; no host import ever calls back into a guest.

pub(crate) mod bindings;
mod compile_cache;
pub(crate) mod contract;
pub mod describe;
mod engine;
mod error;
mod fault;
mod grants;
pub(crate) mod imports;
mod instance;
mod limits;
pub mod manifest;
#[cfg(target_os = "linux")]
mod memory;
mod rate;
mod refusals;
mod state;
mod ticker;
mod versions;
mod workers;

pub use compile_cache::{CacheOutcome, CompileCache};
pub use engine::{LoadedComponent, MAX_COMPONENT_BYTES, SandboxEngine, read_component_file};
pub use error::SandboxError;
pub use fault::{Fault, FaultKind};
#[cfg(test)]
pub(crate) use grants::{GrantedRoot, Mount};
pub(crate) use grants::{Grants, VirtualRoot};
// The host's reader, public only for the bench crate: its native baseline
// reads through the same calls the sandboxed provider makes.
pub(crate) use imports::files::Listed;
#[cfg(feature = "bench-internals")]
pub use imports::files::{HostReader, ReadError, ReaderCall, Reads};
pub(crate) use imports::host::Ahead;
pub(crate) use imports::http::origin_of;
pub(crate) use instance::{Instance, Start};
pub use limits::Limits;
pub use manifest::{Manifest, RootNeed, SettingSpec};
pub(crate) use refusals::Refusals;
pub use refusals::{Refusal, Refused};
pub(crate) use workers::Pending;
pub use workers::{MAX_WORKERS, Speedups, Workers};

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// Identifies one instance among every instance of a process, so a
/// callback from an instance that was replaced can be told apart from the
/// live one's (identity, not name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct InstanceId(u64);

impl InstanceId {
    /// An id no other instance of this process has.
    pub(crate) fn next() -> InstanceId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        InstanceId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A path a provider asked the host to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRequest {
    /// How many levels of subfolders are watched too (0: the folder alone).
    pub depth: u32,
}

/// A watch request translated through the instance's grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WatchTarget {
    /// The guest path asked for.
    pub guest: String,
    /// The host folder behind it.
    pub host: PathBuf,
    /// Levels of subfolders watched too.
    pub depth: u32,
    /// The host folders the instance may see: a watch follows a symlinked
    /// folder only into these.
    pub within: Arc<[PathBuf]>,
    /// The instance may have read the folder as it was at this moment (by
    /// the file clock) or later; no event reports a change made between
    /// then and the watch's installation, so the watcher looks for one.
    pub since: SystemTime,
}

/// What an instance reports to whoever runs it. Called from inside host
/// imports, during a guest call: implementations only record or enqueue.
pub(crate) trait Upcalls: Send + Sync {
    /// The provider's id, for logs.
    fn provider_id(&self) -> &str;
    /// Instance `instance` called `invalidate-provider` (within its rate).
    fn invalidated(&self, instance: InstanceId);
    /// Instance `instance`'s watch requests are now `targets`.
    fn watches_changed(&self, instance: InstanceId, targets: Vec<WatchTarget>);
}
