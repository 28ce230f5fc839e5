//! The usage layer over real files: the SQLite store written by several
//! processes (one killed mid-transaction), damaged and foreign files, the
//! seed's scenarios on an injected clock, the runner, invocations recorded
//! from a real registry, and archive/restore followed by a live watcher.

mod archive;
mod invoke;
mod scenarios;
mod store;

use skillhost_usage::{ManualClock, UsageStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A time well after the epoch for clocks to start at.
pub fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_796_117_400)
}

/// A store in `dir` on a manual clock standing at [`start`].
pub fn store(dir: &Path) -> (UsageStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start()));
    let store = UsageStore::open_with_clock(&db(dir), clock.clone()).expect("the store opens");
    (store, clock)
}

/// The store's file in `dir`.
pub fn db(dir: &Path) -> PathBuf {
    dir.join("state").join("usage.db")
}
