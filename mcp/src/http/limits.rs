//! What answers may hold while they wait for their clients.
//!
//! - Reads: a `resources/read` reserves, before it is answered, the bytes
//!   its answer may take to make and to hold (a few times the file's
//!   listed size), from one budget shared by every connection, and keeps
//!   them until its response is written or dropped. A read that cannot get
//!   its share within the wait is refused with 503, so clients that stop
//!   reading cost the server at most the budget, never a copy of every
//!   file they asked for.
//! - `subscriptions/listen`: the URIs of a filter are de-duplicated before
//!   rmcp sees them (it keeps and echoes each copy), a filter naming more
//!   than [`MAX_LISTEN_URIS`] is refused, and at most so many streams are
//!   open at once (streams need no session, so the session cap does not
//!   hold them).

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use serde_json::Value;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most distinct resource URIs one `subscriptions/listen` filter may name.
pub const MAX_LISTEN_URIS: usize = 4096;

/// The unit the read budget counts in.
const KIB: usize = 1024;

/// The bytes one read of a file of `size` bytes reserves: its bytes, their
/// encoding (base64, or JSON text with escapes) and the frame rmcp writes,
/// alive at once while the answer is made.
pub(crate) fn reservation(size: u64) -> usize {
    usize::try_from(size)
        .unwrap_or(usize::MAX)
        .saturating_mul(3)
        .saturating_add(64 * KIB)
}

/// The budgets every connection draws from.
#[derive(Debug)]
pub(crate) struct Budgets {
    reads: Arc<Semaphore>,
    read_kib: usize,
    wait: Duration,
    streams: Arc<Semaphore>,
}

/// Why a request was not given what it asked for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every byte of the read budget is held by answers not yet written.
    Busy,
    /// Every listen stream allowed is open.
    Streams,
}

impl Budgets {
    /// `read_bytes` for answers in flight, waiting at most `wait` for a
    /// share; `streams` listen streams.
    pub(crate) fn new(read_bytes: usize, wait: Duration, streams: usize) -> Budgets {
        let read_kib = (read_bytes / KIB).max(1);
        Budgets {
            reads: Arc::new(Semaphore::new(read_kib)),
            read_kib,
            wait,
            streams: Arc::new(Semaphore::new(streams.max(1))),
        }
    }

    /// A share of the read budget for `bytes`, waiting for it at most the
    /// wait. A share larger than the whole budget takes the whole budget.
    pub(crate) async fn read(&self, bytes: usize) -> Result<OwnedSemaphorePermit, Refused> {
        let kib = bytes.div_ceil(KIB).clamp(1, self.read_kib);
        let kib = u32::try_from(kib).unwrap_or(u32::MAX);
        match tokio::time::timeout(self.wait, self.reads.clone().acquire_many_owned(kib)).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(Refused::Busy),
        }
    }

    /// A listen stream's slot, if one is free.
    pub(crate) fn stream(&self) -> Result<OwnedSemaphorePermit, Refused> {
        self.streams
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refused::Streams)
    }
}

/// A response body holding its share of a budget until it is written or
/// dropped.
pub(crate) struct Held {
    body: BoxBody<Bytes, Infallible>,
    _share: OwnedSemaphorePermit,
}

impl Held {
    /// `body`, keeping `share` as long as it lives.
    pub(crate) fn new(body: BoxBody<Bytes, Infallible>, share: OwnedSemaphorePermit) -> Held {
        Held {
            body,
            _share: share,
        }
    }
}

impl Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A `subscriptions/listen` filter made fit for rmcp: its resource URIs
/// de-duplicated (first copy kept, in order). `Err` names why it is
/// refused: more than [`MAX_LISTEN_URIS`] distinct URIs. `Ok(false)`: the
/// message is not a listen request, or needed no change.
pub(crate) fn dedupe_listen_filter(message: &mut Value) -> Result<bool, String> {
    if message.get("method").and_then(Value::as_str) != Some("subscriptions/listen") {
        return Ok(false);
    }
    let Some(uris) = message
        .pointer_mut("/params/notifications/resourceSubscriptions")
        .and_then(Value::as_array_mut)
    else {
        return Ok(false);
    };
    let before = uris.len();
    let mut seen = std::collections::HashSet::with_capacity(before.min(MAX_LISTEN_URIS));
    uris.retain(|uri| seen.insert(uri.to_string()));
    if uris.len() > MAX_LISTEN_URIS {
        return Err(format!(
            "the filter names {} resources; a listen stream may name at most {MAX_LISTEN_URIS}",
            uris.len()
        ));
    }
    Ok(uris.len() != before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listen_filter_keeps_one_copy_of_each_uri_in_order() {
        let mut message = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": ["a", "b", "a", "a", "c", "b"]}}});
        assert_eq!(dedupe_listen_filter(&mut message), Ok(true));
        assert_eq!(
            message["params"]["notifications"]["resourceSubscriptions"],
            json!(["a", "b", "c"])
        );
        assert_eq!(
            dedupe_listen_filter(&mut message),
            Ok(false),
            "nothing left to change"
        );
        let mut other = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read"});
        assert_eq!(dedupe_listen_filter(&mut other), Ok(false));
    }

    #[test]
    fn forty_thousand_copies_of_one_uri_become_one_and_too_many_distinct_are_refused() {
        let copies: Vec<&str> = vec!["skill://a/SKILL.md"; 40_000];
        let mut message = json!({"method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": copies}}});
        assert_eq!(dedupe_listen_filter(&mut message), Ok(true));
        assert_eq!(
            message["params"]["notifications"]["resourceSubscriptions"],
            json!(["skill://a/SKILL.md"])
        );
        let distinct: Vec<String> = (0..=MAX_LISTEN_URIS)
            .map(|i| format!("skill://{i}"))
            .collect();
        let mut message = json!({"method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": distinct}}});
        let refused = dedupe_listen_filter(&mut message).unwrap_err();
        assert!(refused.contains("at most 4096"), "{refused}");
    }

    // Real time, so the wait is kept short; every refusal below takes it
    // whole however busy the machine is.
    #[tokio::test]
    async fn reads_wait_for_a_share_and_are_refused_busy_when_none_frees_in_time() {
        let wait = Duration::from_millis(300);
        let budgets = Budgets::new(4 * 1024 * 1024, wait, 1);
        let held = budgets.read(3 * 1024 * 1024).await.unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            budgets.read(2 * 1024 * 1024).await.unwrap_err(),
            Refused::Busy
        );
        assert!(
            started.elapsed() >= wait,
            "refused before the wait was over"
        );
        // A share freed while a read waits goes to that read.
        let freeing = tokio::spawn(async move { drop(held) });
        let waited = budgets.read(2 * 1024 * 1024).await.unwrap();
        freeing.await.unwrap();
        drop(waited);
        // A share larger than the whole budget waits for all of it.
        let whole = budgets.read(usize::MAX).await.unwrap();
        assert_eq!(budgets.read(1).await.unwrap_err(), Refused::Busy);
        drop(whole);
        assert!(budgets.read(1).await.is_ok());
    }

    #[test]
    fn listen_streams_are_capped_and_a_closed_one_frees_its_slot() {
        let budgets = Budgets::new(1 << 20, Duration::from_secs(1), 2);
        let first = budgets.stream().unwrap();
        let _second = budgets.stream().unwrap();
        assert_eq!(budgets.stream().unwrap_err(), Refused::Streams);
        drop(first);
        assert!(budgets.stream().is_ok());
    }
}
