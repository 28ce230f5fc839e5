//! Timer arithmetic that cannot overflow: durations come from
//! configuration and embedders, and `Instant + Duration` panics past the
//! platform's range (which would kill the thread that computed it).

use std::time::{Duration, Instant};

/// A year: what "never" means for a deadline or a due time.
const FAR: Duration = Duration::from_secs(365 * 24 * 3600);

/// `at + d`, or as far after `at` as the clock allows.
pub fn later(at: Instant, d: Duration) -> Instant {
    at.checked_add(d)
        .or_else(|| at.checked_add(FAR))
        .unwrap_or(at)
}

/// `d` from now (see [`later`]).
pub fn after(d: Duration) -> Instant {
    later(Instant::now(), d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_duration_saturates_instead_of_panicking() {
        let now = Instant::now();
        assert!(later(now, Duration::MAX) > now);
        assert_eq!(
            later(now, Duration::from_secs(1)),
            now + Duration::from_secs(1)
        );
    }
}
