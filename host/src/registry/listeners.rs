//! Change listeners and the notifier thread that calls them: listeners
//! get no details (they fetch a new snapshot), run one burst of changes at
//! a time, never inside a provider call, and one that panics does not stop
//! the others.

use crate::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, Weak};

type Listener = Arc<dyn Fn() + Send + Sync>;

/// The listeners of one registry.
#[derive(Default)]
pub(crate) struct Listeners {
    next: AtomicU64,
    entries: Mutex<Vec<(u64, Listener)>>,
    /// Set by dispose: a notification already queued calls no one.
    closed: AtomicBool,
}

/// Keeps a change listener registered; dropping it unsubscribes.
pub struct Subscription {
    id: u64,
    listeners: Weak<Listeners>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            lock(&listeners.entries).retain(|(id, _)| *id != self.id);
        }
    }
}

impl Listeners {
    /// Registers `listener` until the subscription is dropped.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        listener: impl Fn() + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.entries).push((id, Arc::new(listener)));
        Subscription {
            id,
            listeners: Arc::downgrade(self),
        }
    }

    /// Calls no one from now on.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        lock(&self.entries).clear();
    }

    /// Starts the notifier thread; the sender wakes it.
    pub(crate) fn start_notifier(self: &Arc<Self>) -> Option<Sender<()>> {
        let (tx, rx) = mpsc::channel::<()>();
        let weak = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("skillhost-notify".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    while rx.try_recv().is_ok() {}
                    let Some(listeners) = weak.upgrade() else {
                        return;
                    };
                    if !listeners.notify_all() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the change notifier; listeners will not be called");
                None
            }
        }
    }

    /// Calls every listener once; false when closed.
    fn notify_all(&self) -> bool {
        let current: Vec<Listener> = lock(&self.entries).iter().map(|(_, l)| l.clone()).collect();
        for listener in current {
            if self.closed.load(Ordering::Acquire) {
                return false;
            }
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener())).is_err() {
                tracing::warn!("a change listener panicked; the others still run");
            }
        }
        true
    }
}
