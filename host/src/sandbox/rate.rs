//! Counting calls in fixed windows of time, for the per-instance rate
//! limits on `invalidate-provider` and `log`. Pure: the caller passes the
//! time.

use std::time::{Duration, Instant};

/// A window of `length` in which at most `max` calls are admitted; the
/// calls past it are counted as dropped until the window ends.
#[derive(Debug, Clone)]
pub(crate) struct RateWindow {
    length: Duration,
    max: u32,
    since: Instant,
    count: u32,
    dropped: u32,
}

/// What [`RateWindow::admit`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Admission {
    /// The call is within the rate.
    pub allowed: bool,
    /// Calls dropped in the window that ended with this call (0 when the
    /// window goes on), to be reported once.
    pub dropped_before: u32,
}

impl RateWindow {
    /// A window of `length` admitting `max` calls, starting at `now`.
    pub(crate) fn new(length: Duration, max: u32, now: Instant) -> Self {
        RateWindow {
            length,
            max,
            since: now,
            count: 0,
            dropped: 0,
        }
    }

    /// Counts a call at `now`: a call once the window is over starts a new
    /// one (and hands over what the old one dropped).
    pub(crate) fn admit(&mut self, now: Instant) -> Admission {
        let mut dropped_before = 0;
        if now.saturating_duration_since(self.since) >= self.length {
            dropped_before = self.dropped;
            (self.since, self.count, self.dropped) = (now, 0, 0);
        }
        self.count = self.count.saturating_add(1);
        let allowed = self.count <= self.max;
        if !allowed {
            self.dropped = self.dropped.saturating_add(1);
        }
        Admission {
            allowed,
            dropped_before,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn calls_past_the_rate_are_dropped_until_the_window_ends() {
        let start = Instant::now();
        let mut window = RateWindow::new(SECOND, 3, start);
        let allowed: Vec<bool> = (0..5).map(|_| window.admit(start).allowed).collect();
        assert_eq!(allowed, [true, true, true, false, false]);
        // Just before the end of the window: still refused, nothing reported.
        let late = start + SECOND - Duration::from_millis(1);
        assert_eq!(
            window.admit(late),
            Admission {
                allowed: false,
                dropped_before: 0
            }
        );
        // The first call of the next window is admitted and hands over the
        // three dropped, once.
        let next = start + SECOND;
        assert_eq!(
            window.admit(next),
            Admission {
                allowed: true,
                dropped_before: 3
            }
        );
        assert_eq!(window.admit(next).dropped_before, 0);
    }

    #[test]
    fn a_window_without_drops_reports_none_and_a_new_window_starts_at_its_first_call() {
        let start = Instant::now();
        let mut window = RateWindow::new(SECOND, 2, start);
        assert!(window.admit(start).allowed);
        // Long after: a new window from this call, not from `start + 1 s`.
        let later = start + 10 * SECOND;
        assert_eq!(
            window.admit(later),
            Admission {
                allowed: true,
                dropped_before: 0
            }
        );
        assert!(window.admit(later + SECOND / 2).allowed);
        assert!(!window.admit(later + SECOND / 2).allowed);
        assert!(window.admit(later + SECOND).allowed);
    }

    #[test]
    fn a_clock_read_before_the_window_started_does_not_reset_it() {
        let start = Instant::now() + SECOND;
        let mut window = RateWindow::new(SECOND, 1, start);
        assert!(window.admit(start).allowed);
        assert!(!window.admit(start - SECOND).allowed, "no new window");
    }

    #[test]
    fn a_zero_rate_admits_nothing_and_counts_every_call() {
        let start = Instant::now();
        let mut window = RateWindow::new(SECOND, 0, start);
        for _ in 0..1000 {
            assert!(!window.admit(start).allowed);
        }
        assert_eq!(window.admit(start + SECOND).dropped_before, 1000);
    }
}
