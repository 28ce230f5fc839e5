//! A connection that cannot be held open for nothing: a write that makes
//! no progress for the write timeout, or a connection that moves no byte
//! either way for the idle timeout, fails with `TimedOut`, and hyper then
//! drops the connection and whatever response it still held for it. A
//! client that stops reading a large answer pins it for at most the write
//! timeout (without this it stayed pinned until the client left).
//! Healthy streams stay open: rmcp sends a keep-alive on each SSE stream
//! well inside the idle timeout.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep, sleep};

/// `inner` with a write timeout and an idle timeout.
pub(crate) struct TimedIo<T> {
    inner: T,
    write_timeout: Duration,
    idle_timeout: Duration,
    /// When the pending write gives up; set while a write waits.
    write_deadline: Option<Pin<Box<Sleep>>>,
    /// When the connection gives up for want of any progress.
    idle: Pin<Box<Sleep>>,
}

impl<T> TimedIo<T> {
    /// Wraps `inner`; both clocks start now.
    pub(crate) fn new(inner: T, write_timeout: Duration, idle_timeout: Duration) -> Self {
        TimedIo {
            inner,
            write_timeout,
            idle_timeout,
            write_deadline: None,
            idle: Box::pin(sleep(idle_timeout)),
        }
    }

    fn progressed(&mut self) {
        self.idle.as_mut().reset(Instant::now() + self.idle_timeout);
    }

    fn idle_expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.idle.as_mut().poll(cx).is_ready()
    }

    /// Whether a write that cannot go on has waited past its timeout.
    fn write_expired(&mut self, cx: &mut Context<'_>) -> bool {
        let timeout = self.write_timeout;
        let deadline = self
            .write_deadline
            .get_or_insert_with(|| Box::pin(sleep(timeout)));
        deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, what.to_string())
}

impl<T: AsyncRead + Unpin> AsyncRead for TimedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    self.progressed();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if self.idle_expired(cx) => {
                Poll::Ready(Err(timed_out("the connection was idle too long")))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for TimedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                self.write_deadline = None;
                if n > 0 {
                    self.progressed();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if self.write_expired(cx) || self.idle_expired(cx) => {
                Poll::Ready(Err(timed_out("the client did not read its answer in time")))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                self.write_deadline = None;
                if n > 0 {
                    self.progressed();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if self.write_expired(cx) || self.idle_expired(cx) => {
                Poll::Ready(Err(timed_out("the client did not read its answer in time")))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Pending if self.write_expired(cx) => {
                Poll::Ready(Err(timed_out("the client did not read its answer in time")))
            }
            Poll::Ready(result) => {
                self.write_deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    // Real time, so the timeouts are short and the bounds generous: a
    // deadline is never early, and late only by the machine's scheduling.
    const SLACK: Duration = Duration::from_secs(5);

    #[tokio::test]
    async fn a_write_the_peer_never_reads_fails_after_the_write_timeout() {
        // A pipe whose far end is never read: writes stop once its buffer is full.
        let (near, _far) = tokio::io::duplex(1024);
        let write_timeout = Duration::from_millis(300);
        let mut io = TimedIo::new(near, write_timeout, Duration::from_secs(60));
        let started = Instant::now();
        let big = vec![b'x'; 64 * 1024];
        let failed = io.write_all(&big).await.unwrap_err();
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= write_timeout && waited < write_timeout + SLACK,
            "{waited:?}"
        );
    }

    #[tokio::test]
    async fn a_connection_moving_no_bytes_fails_after_the_idle_timeout_and_traffic_keeps_it() {
        let (near, mut far) = tokio::io::duplex(1024);
        let idle_timeout = Duration::from_millis(1500);
        let mut io = TimedIo::new(near, Duration::from_secs(60), idle_timeout);
        let mut byte = [0u8; 1];
        // Traffic every 500 ms keeps it open past the idle timeout.
        let kept_from = Instant::now();
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            far.write_all(b"k").await.unwrap();
            io.read_exact(&mut byte).await.unwrap();
        }
        assert!(kept_from.elapsed() > idle_timeout);
        let started = Instant::now();
        let failed = io.read(&mut byte).await.unwrap_err();
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(waited < idle_timeout + SLACK, "{waited:?}");
    }
}
