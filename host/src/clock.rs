//! Timer arithmetic that cannot overflow: durations come from
//! configuration and embedders, and `Instant + Duration` panics past the
//! platform's range (which would kill the thread that computed it).

use std::time::{Duration, Instant, SystemTime};

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

/// Now, by the clock the kernel stamps file times with. Linux stamps a
/// change with its coarse clock, which lags the precise one by up to a
/// tick: a file changed a moment after a precise `SystemTime::now()` can
/// carry an older time. Taken from the same coarse clock, a moment is
/// never later than the stamp of a change made after it, so "changed at
/// or after this" misses nothing (elsewhere the precise clock less a tick
/// stands in for it).
pub fn file_clock_now() -> SystemTime {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec.
        if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut now) } == 0
            && let (Ok(secs), Ok(nanos)) = (u64::try_from(now.tv_sec), u32::try_from(now.tv_nsec))
        {
            return SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
        }
    }
    let now = SystemTime::now();
    now.checked_sub(Duration::from_millis(20)).unwrap_or(now)
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
