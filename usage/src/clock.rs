//! Time for the usage layer: a clock that can be replaced, so tests move
//! time forward instead of sleeping, and the conversions the store needs.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where the usage layer reads the time.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that moves only when told to (tests, replays).
#[derive(Debug)]
pub struct ManualClock(Mutex<SystemTime>);

impl ManualClock {
    /// A clock standing at `at`.
    pub fn new(at: SystemTime) -> Self {
        ManualClock(Mutex::new(at))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: SystemTime) {
        *skillhost::sync::lock(&self.0) = at;
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = skillhost::sync::lock(&self.0);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *skillhost::sync::lock(&self.0)
    }
}

/// `days` as a duration (fractions allowed; negative counts as zero).
pub fn days(days: f64) -> Duration {
    Duration::from_secs_f64((days * 86_400.0).max(0.0))
}

/// Milliseconds since the Unix epoch (negative before it), as stored.
pub fn to_millis(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// The time `millis` after the Unix epoch (before it when negative).
pub fn from_millis(millis: i64) -> SystemTime {
    let magnitude = Duration::from_millis(millis.unsigned_abs());
    if millis >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

/// Hours from `then` to `now`; zero when `then` is later (a clock that
/// went back must not make a skill look fresher than just used).
pub fn hours_between(then: SystemTime, now: SystemTime) -> f64 {
    now.duration_since(then)
        .map_or(0.0, |d| d.as_secs_f64() / 3_600.0)
}

/// `at` as an RFC 3339 UTC timestamp to the second (`2026-12-01T09:30:00Z`).
pub fn rfc3339(at: SystemTime) -> String {
    let secs = to_millis(at).div_euclid(1000);
    let (day, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, dom) = civil_from_days(day);
    format!(
        "{year:04}-{month:02}-{dom:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The time an RFC 3339 UTC timestamp names (`2026-12-01T11:18:11Z`, with
/// fractional seconds or not), as session logs write them; `None` for any
/// other text (an offset other than `Z` included).
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let text = text.strip_suffix('Z').or_else(|| text.strip_suffix('z'))?;
    let (date, time) = text.split_once(['T', 't'])?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let time = time.split('.').next()?;
    let mut time = time.splitn(3, ':').map(str::parse::<i64>);
    let (hour, minute, second) = (time.next()?.ok()?, time.next()?.ok()?, time.next()?.ok()?);
    let valid = (1970..=9999).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&hour)
        && (0..60).contains(&minute)
        && (0..=60).contains(&second);
    if !valid {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(u64::try_from(secs).ok()?))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm, the inverse of [`civil_from_days`]).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_parses_back_to_the_time_it_was_written_from() {
        for secs in [0u64, 951_782_400, 1_764_588_000, 1_796_000_123] {
            let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            assert_eq!(parse_rfc3339(&rfc3339(at)), Some(at), "{}", rfc3339(at));
        }
        assert_eq!(
            parse_rfc3339("2026-12-01T11:18:11.250Z"),
            parse_rfc3339("2026-12-01T11:18:11Z")
        );
        for bad in [
            "2026-12-01T11:18:11+02:00",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn timestamps_print_as_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(from_millis(1_796_117_400_000)),
            "2026-12-01T09:30:00Z"
        );
        assert_eq!(
            rfc3339(from_millis(951_782_400_000)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(rfc3339(from_millis(-1_000)), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn millis_round_trip_on_both_sides_of_the_epoch() {
        for millis in [0, 1, -1, 1_796_117_400_123, -86_400_000] {
            assert_eq!(to_millis(from_millis(millis)), millis);
        }
    }

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(UNIX_EPOCH);
        assert_eq!(clock.now(), UNIX_EPOCH);
        clock.advance(days(1.5));
        assert_eq!(hours_between(UNIX_EPOCH, clock.now()), 36.0);
        assert_eq!(hours_between(clock.now(), UNIX_EPOCH), 0.0);
    }
}
