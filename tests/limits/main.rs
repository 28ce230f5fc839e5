//! Tests that exhaust a limit of the whole process or user (file
//! descriptors, inotify instances) to make a failure real. Each holds
//! [`alone`] for its whole run, and this binary holds no other tests, so no
//! test ever meets a limit another one reached.

mod transient;
mod watcher_failure;

use std::sync::{Mutex, MutexGuard};

/// Held for the whole of a test that takes a process- or user-wide limit.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    // A test that failed while holding it restored its limit on unwind or
    // left the process; the next one still runs alone.
    ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
