//! The process's log: on stderr, coloured only when stderr is a terminal
//! (escape codes in a log file or a CI page are noise), and with each
//! warning that can repeat once per request (a refused Host or Origin, a
//! refused connection) let through at most a few times per window, so a
//! client sending bad requests in a loop cannot fill the log.

use std::collections::HashMap;
use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tracing::Level;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _, filter};

/// Warnings of one call site let through per [`WINDOW`].
const PER_WINDOW: u32 = 5;
/// See [`PER_WINDOW`].
const WINDOW: Duration = Duration::from_secs(60);

/// Installs the log (level from `SKILLHOST_LOG`, warnings by default).
pub fn init() {
    let filter = EnvFilter::try_from_env("SKILLHOST_LOG")
        .unwrap_or_else(|_| EnvFilter::new("warn,notify=error"));
    let limiter = Limiter::default();
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter::filter_fn(move |meta| limiter.allows(meta)))
        .with_filter(filter);
    tracing_subscriber::registry().with(layer).init();
}

/// Counts warnings per call site.
#[derive(Default)]
struct Limiter {
    seen: Mutex<HashMap<tracing::callsite::Identifier, (Instant, u32)>>,
}

impl Limiter {
    /// Whether an event at `meta` is logged: everything but warnings from
    /// the request-serving code always is.
    fn allows(&self, meta: &tracing::Metadata<'_>) -> bool {
        let per_request =
            meta.target().starts_with("rmcp") || meta.target().starts_with("skillhost_mcp::http");
        if !meta.is_event() || *meta.level() != Level::WARN || !per_request {
            return true;
        }
        self.allow_at(meta.callsite(), Instant::now())
    }

    fn allow_at(&self, site: tracing::callsite::Identifier, now: Instant) -> bool {
        let mut seen = skillhost::sync::lock(&self.seen);
        let (start, count) = seen.entry(site).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        *count += 1;
        *count <= PER_WINDOW
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Site;
    impl tracing::callsite::Callsite for Site {
        fn set_interest(&self, _: tracing::subscriber::Interest) {}
        fn metadata(&self) -> &tracing::Metadata<'_> {
            unreachable!("not asked in this test")
        }
    }
    static SITE: Site = Site;

    #[test]
    fn a_repeating_warning_is_let_through_a_few_times_per_window() {
        let limiter = Limiter::default();
        let id = tracing::callsite::Identifier(&SITE);
        let start = Instant::now();
        let allowed = (0..100)
            .filter(|_| limiter.allow_at(id.clone(), start))
            .count();
        assert_eq!(allowed, PER_WINDOW as usize);
        assert!(limiter.allow_at(id.clone(), start + WINDOW), "a new window");
    }
}
