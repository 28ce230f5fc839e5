//! Restart backoff: after a fault a provider waits before its next
//! instance starts, twice as long with each fault in a row (capped), so a
//! provider that always crashes costs the host little.

use crate::sandbox::{Fault, Limits};
use std::time::Instant;

/// Faults in a row and when the provider may start again.
#[derive(Debug, Default)]
pub(crate) struct Health {
    faults_in_a_row: u32,
    restart_at: Option<Instant>,
    last: Option<Fault>,
}

impl Health {
    /// The fault to report instead of starting, while the backoff lasts.
    pub(crate) fn waiting(&self, now: Instant) -> Option<Fault> {
        let (at, last) = (self.restart_at?, self.last.as_ref()?);
        (now < at).then(|| {
            Fault::new(
                last.kind.clone(),
                format!(
                    "{} (fault {} in a row; restarting in {} ms)",
                    last.message,
                    self.faults_in_a_row,
                    at.saturating_duration_since(now).as_millis()
                ),
            )
        })
    }

    /// A call succeeded: the next fault starts the backoff afresh.
    pub(crate) fn succeeded(&mut self) {
        self.faults_in_a_row = 0;
        self.restart_at = None;
    }

    /// A call or a start failed at `now`.
    pub(crate) fn failed(&mut self, fault: &Fault, limits: &Limits, now: Instant) {
        self.faults_in_a_row = self.faults_in_a_row.saturating_add(1);
        self.restart_at = now.checked_add(limits.restart_wait(self.faults_in_a_row));
        self.last = Some(fault.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::FaultKind;
    use std::time::Duration;

    #[test]
    fn a_fault_blocks_restarts_until_its_backoff_passes() {
        let limits = Limits {
            restart_initial: Duration::from_millis(100),
            restart_max: Duration::from_secs(1),
            ..Limits::default()
        };
        let mut health = Health::default();
        let now = Instant::now();
        assert!(health.waiting(now).is_none());
        let fault = Fault::new(FaultKind::Trap, "boom");
        health.failed(&fault, &limits, now);
        let waiting = health.waiting(now).expect("in backoff");
        assert_eq!(waiting.kind, FaultKind::Trap);
        assert!(
            waiting.message.contains("fault 1 in a row"),
            "{}",
            waiting.message
        );
        assert!(health.waiting(now + Duration::from_millis(100)).is_none());
        health.failed(&fault, &limits, now);
        assert!(
            health.waiting(now + Duration::from_millis(150)).is_some(),
            "doubled"
        );
        health.succeeded();
        assert!(health.waiting(now).is_none());
    }
}
