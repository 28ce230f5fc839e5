//! Listeners for what the watcher delivered: the host paths of each burst,
//! after the provider was told. A body-only edit changes no catalog (the
//! provider invalidates nothing), so this is how an embedder learns that a
//! file it serves changed — to tell its own subscribers, say.

use crate::provider::ChangeKind;
use crate::sync::lock;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

type Listener = Arc<dyn Fn(&str, &[(PathBuf, ChangeKind)]) + Send + Sync>;

/// The delivery listeners of one watcher.
#[derive(Default)]
pub(super) struct DeliveryListeners {
    next: AtomicU64,
    entries: Mutex<Vec<(u64, Listener)>>,
}

/// Keeps a delivery listener registered; dropping it unsubscribes.
pub struct DeliverySubscription {
    id: u64,
    listeners: Weak<DeliveryListeners>,
}

impl Drop for DeliverySubscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            lock(&listeners.entries).retain(|(id, _)| *id != self.id);
        }
    }
}

impl DeliveryListeners {
    pub(super) fn subscribe(
        self: &Arc<Self>,
        listener: impl Fn(&str, &[(PathBuf, ChangeKind)]) + Send + Sync + 'static,
    ) -> DeliverySubscription {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.entries).push((id, Arc::new(listener)));
        DeliverySubscription {
            id,
            listeners: Arc::downgrade(self),
        }
    }

    /// Tells every listener; one that panics does not stop the others.
    pub(super) fn delivered(&self, provider: &str, changes: &[(PathBuf, ChangeKind)]) {
        let current: Vec<Listener> = lock(&self.entries).iter().map(|(_, l)| l.clone()).collect();
        for listener in current {
            let told = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                listener(provider, changes)
            }));
            if told.is_err() {
                tracing::warn!("a delivery listener panicked; the others still run");
            }
        }
    }
}
