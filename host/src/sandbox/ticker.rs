//! The epoch ticker that enforces call deadlines.
//!
//! The engine's epoch advances every [`TICK`] while at least one call is in
//! flight, and the ticker sleeps otherwise, so an idle host costs no
//! wake-ups. Each store checks its own deadline against the real clock on
//! every tick, so a call overruns its deadline by at most about one tick.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::thread::{self, Thread};
use std::time::Duration;
use wasmtime::Engine;

/// How often the epoch advances while a provider call is running.
pub const TICK: Duration = Duration::from_millis(1);

/// The ticker thread of one engine.
pub(crate) struct Ticker {
    shared: Arc<TickerShared>,
    thread: Thread,
}

struct TickerShared {
    active: AtomicUsize,
    stop: AtomicBool,
}

/// Marks one provider call in flight.
pub(crate) struct TickGuard<'a> {
    ticker: &'a Ticker,
}

impl Ticker {
    pub(crate) fn start(engine: Engine) -> std::io::Result<Ticker> {
        let shared = Arc::new(TickerShared {
            active: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let weak: Weak<TickerShared> = Arc::downgrade(&shared);
        let handle = thread::Builder::new()
            .name("skillhost-epoch".into())
            .spawn(move || {
                loop {
                    let Some(shared) = weak.upgrade() else { return };
                    if shared.stop.load(Ordering::Acquire) {
                        return;
                    }
                    let idle = shared.active.load(Ordering::Acquire) == 0;
                    drop(shared);
                    if idle {
                        thread::park();
                    } else {
                        thread::sleep(TICK);
                        engine.increment_epoch();
                    }
                }
            })
            .map(|h| h.thread().clone())?;
        Ok(Ticker {
            shared,
            thread: handle,
        })
    }

    pub(crate) fn enter(&self) -> TickGuard<'_> {
        if self.shared.active.fetch_add(1, Ordering::AcqRel) == 0 {
            self.thread.unpark();
        }
        TickGuard { ticker: self }
    }
}

impl Drop for TickGuard<'_> {
    fn drop(&mut self) {
        self.ticker.shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.thread.unpark();
    }
}
