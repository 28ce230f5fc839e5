//! Telling clients what changed.
//!
//! On 2025-11-25 (an `initialize` handshake, over stdio or an HTTP
//! session) every session gets its own task that sends the list-changed
//! notifications, and `resources/updated` for the URIs it subscribed to,
//! on its own: a client that stalls or goes away delays no one else. The
//! task ends with the session. On 2026-07-28 a client opens
//! `subscriptions/listen` and the notifications go down that stream.

use crate::live::{Change, Live};
use rmcp::ErrorData as McpError;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, RoleServer, SubscriptionContext, SubscriptionSendError};
use skillhost::sync::lock;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// Longest one notification may wait for a slow client before it is
/// dropped for that client.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// One client's session state: what it subscribed to. Dropped with the
/// session's handler, which ends its notification task.
#[derive(Default)]
pub struct Session {
    subscribed: Arc<Mutex<BTreeSet<String>>>,
    closed: CancellationToken,
    started: AtomicBool,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

impl Session {
    /// Adds a URI to what this session hears `resources/updated` for.
    pub fn subscribe(&self, uri: &str) {
        lock(&self.subscribed).insert(uri.to_string());
    }

    /// Removes a URI from what this session hears about.
    pub fn unsubscribe(&self, uri: &str) {
        lock(&self.subscribed).remove(uri);
    }

    /// Starts the session's notification task (once).
    pub fn start(&self, peer: Peer<RoleServer>, live: &Live) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let changes = live.changes();
        let subscribed = self.subscribed.clone();
        let closed = self.closed.clone();
        tokio::spawn(async move {
            let mut changes = changes;
            loop {
                let change = tokio::select! {
                    _ = closed.cancelled() => return,
                    received = changes.recv() => match received {
                        Ok(change) => change,
                        Err(RecvError::Lagged(_)) => {
                            Change::everything(lock(&subscribed).iter().cloned().collect())
                        }
                        Err(RecvError::Closed) => return,
                    },
                };
                if peer.is_transport_closed() {
                    return;
                }
                let updated: Vec<String> = {
                    let subscribed = lock(&subscribed);
                    change
                        .updated
                        .iter()
                        .filter(|u| subscribed.contains(*u))
                        .cloned()
                        .collect()
                };
                if !tell(&peer, &change, &updated).await {
                    return;
                }
            }
        });
    }
}

/// Sends one change to a 2025-11-25 session; false when the session is gone.
async fn tell(peer: &Peer<RoleServer>, change: &Change, updated: &[String]) -> bool {
    async fn sent(
        send: impl Future<Output = Result<(), rmcp::ServiceError>>,
        peer: &Peer<RoleServer>,
    ) -> bool {
        match tokio::time::timeout(SEND_TIMEOUT, send).await {
            Ok(Ok(())) => true,
            // A stalled client misses this one; a closed one is done.
            Err(_) => !peer.is_transport_closed(),
            Ok(Err(_)) => false,
        }
    }
    if change.resources && !sent(peer.notify_resource_list_changed(), peer).await {
        return false;
    }
    if change.prompts && !sent(peer.notify_prompt_list_changed(), peer).await {
        return false;
    }
    if change.tools && !sent(peer.notify_tool_list_changed(), peer).await {
        return false;
    }
    for uri in updated {
        let param = ResourceUpdatedNotificationParam::new(uri.clone());
        if !sent(peer.notify_resource_updated(param), peer).await {
            return false;
        }
    }
    true
}

/// Serves one `subscriptions/listen` stream (2026-07-28) until the client
/// closes it.
pub async fn listen(live: &Live, cx: SubscriptionContext) -> Result<(), McpError> {
    let mut changes = live.changes();
    let sink = cx.sink().clone();
    loop {
        let change = tokio::select! {
            _ = cx.cancelled() => return Ok(()),
            received = changes.recv() => match received {
                Ok(change) => change,
                Err(RecvError::Lagged(_)) => Change::everything(
                    cx.accepted().resource_subscriptions.clone().unwrap_or_default(),
                ),
                Err(RecvError::Closed) => return Ok(()),
            },
        };
        // A kind the client did not ask for is skipped; a closed stream ends.
        let outcome = |r: Result<(), SubscriptionSendError>| match r {
            Ok(()) | Err(SubscriptionSendError::NotificationNotAccepted(_)) => true,
            Err(_) => false,
        };
        if change.resources && !outcome(sink.notify_resource_list_changed().await) {
            return Ok(());
        }
        if change.prompts && !outcome(sink.notify_prompt_list_changed().await) {
            return Ok(());
        }
        if change.tools && !outcome(sink.notify_tool_list_changed().await) {
            return Ok(());
        }
        for uri in change.updated.iter() {
            if !outcome(sink.notify_resource_updated(uri.clone()).await) {
                return Ok(());
            }
        }
    }
}
