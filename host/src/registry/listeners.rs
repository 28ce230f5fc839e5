//! One kind of listener list for every change the host reports: the
//! registry's [`Change`](super::Change) events and the watcher's
//! deliveries. A listener is called with the event, one at a time on the
//! thread that reports it; one that panics does not stop the others, and
//! after `close` no one is called, even for an event already under way.

use crate::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

type Listener<E> = Arc<dyn Fn(&E) + Send + Sync>;

/// The listeners of one source of events `E`.
pub(crate) struct Listeners<E> {
    next: AtomicU64,
    entries: Mutex<Vec<(u64, Listener<E>)>>,
    closed: AtomicBool,
}

impl<E> Default for Listeners<E> {
    fn default() -> Self {
        Listeners {
            next: AtomicU64::new(0),
            entries: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }
    }
}

/// What a [`Subscription`] needs of its list, whatever the event type.
trait Unsubscribe: Send + Sync {
    fn unsubscribe(&self, id: u64);
}

impl<E: 'static> Unsubscribe for Listeners<E> {
    fn unsubscribe(&self, id: u64) {
        lock(&self.entries).retain(|(entry, _)| *entry != id);
    }
}

/// Keeps a listener registered; dropping it unsubscribes.
pub struct Subscription {
    id: u64,
    from: Weak<dyn Unsubscribe>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.from.upgrade() {
            listeners.unsubscribe(self.id);
        }
    }
}

impl<E: 'static> Listeners<E> {
    /// Registers `listener` until the subscription is dropped.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        listener: impl Fn(&E) + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.entries).push((id, Arc::new(listener)));
        let from: Weak<dyn Unsubscribe> = Arc::downgrade(self) as Weak<dyn Unsubscribe>;
        Subscription { id, from }
    }

    /// Calls no one from now on.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        lock(&self.entries).clear();
    }

    /// Calls every listener with `event`; false once closed. The list is
    /// copied first, so a listener may subscribe or unsubscribe.
    pub(crate) fn notify(&self, event: &E) -> bool {
        let current: Vec<Listener<E>> =
            lock(&self.entries).iter().map(|(_, l)| l.clone()).collect();
        for listener in current {
            if self.closed.load(Ordering::Acquire) {
                return false;
            }
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(event))).is_err() {
                tracing::warn!("a change listener panicked; the others still run");
            }
        }
        !self.closed.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn every_listener_hears_the_event_even_after_one_panics() {
        let listeners = Arc::new(Listeners::<u32>::default());
        let heard = Arc::new(AtomicUsize::new(0));
        let _bad = listeners.subscribe(|_| panic!("a listener that fails"));
        let counter = heard.clone();
        let _good = listeners.subscribe(move |n| {
            counter.fetch_add(*n as usize, Ordering::SeqCst);
        });
        assert!(listeners.notify(&3));
        assert_eq!(heard.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_dropped_subscription_and_a_closed_list_call_no_one() {
        let listeners = Arc::new(Listeners::<()>::default());
        let heard = Arc::new(AtomicUsize::new(0));
        let counter = heard.clone();
        let subscription = listeners.subscribe(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        listeners.notify(&());
        drop(subscription);
        listeners.notify(&());
        assert_eq!(heard.load(Ordering::SeqCst), 1);

        let counter = heard.clone();
        let _kept = listeners.subscribe(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        listeners.close();
        assert!(!listeners.notify(&()));
        assert_eq!(heard.load(Ordering::SeqCst), 1);
    }
}
