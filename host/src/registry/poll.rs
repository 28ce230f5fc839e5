//! The host-driven poll of providers no watcher can serve (a remote
//! index): one thread, each provider asked on its own interval. The
//! provider decides whether anything changed and calls
//! `invalidate-provider` only then.

use crate::provider::Provider;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Shortest interval honoured, so a configuration cannot make the host
/// spin on a provider.
pub const MIN_INTERVAL: Duration = Duration::from_millis(50);

enum Message {
    Add(Weak<Provider>, Duration),
}

/// Polls registered providers until dropped.
pub(crate) struct Poller {
    tx: Sender<Message>,
}

struct Due {
    provider: Weak<Provider>,
    every: Duration,
    next: Instant,
}

impl Poller {
    /// Starts the polling thread.
    pub(crate) fn start() -> std::io::Result<Poller> {
        let (tx, rx) = mpsc::channel::<Message>();
        std::thread::Builder::new()
            .name("skillhost-poll".into())
            .spawn(move || {
                let mut due: Vec<Due> = Vec::new();
                loop {
                    let wait = due
                        .iter()
                        .map(|d| d.next.saturating_duration_since(Instant::now()))
                        .min()
                        .unwrap_or(Duration::from_secs(3600));
                    match rx.recv_timeout(wait) {
                        Ok(Message::Add(provider, every)) => {
                            let every = every.max(MIN_INTERVAL);
                            due.push(Due {
                                provider,
                                every,
                                next: crate::clock::after(every),
                            });
                            continue;
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                    let now = Instant::now();
                    due.retain(|d| d.provider.strong_count() > 0);
                    for d in due.iter_mut().filter(|d| d.next <= now) {
                        if let Some(provider) = d.provider.upgrade()
                            && !provider.signals().is_disposed()
                            && let Err(e) = provider.poll()
                        {
                            tracing::warn!(provider = provider.id(), error = %e, "poll failed");
                        }
                        d.next = crate::clock::after(d.every);
                    }
                }
            })?;
        Ok(Poller { tx })
    }

    /// Polls `provider` every `every` from now on.
    pub(crate) fn add(&self, provider: &Arc<Provider>, every: Duration) {
        let _ = self.tx.send(Message::Add(Arc::downgrade(provider), every));
    }
}
