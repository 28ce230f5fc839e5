//! What one provider may spend: memory, time per call, invalidations, and
//! how soon it is restarted after a fault.

use std::time::Duration;
use wasmtime::ResourceLimiter;

/// Resource limits for one provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest linear memory the provider may grow to, in bytes.
    pub memory_bytes: usize,
    /// Longest any single call may run.
    pub deadline: Duration,
    /// Most `invalidate-provider` calls per second before the provider is
    /// stopped as a flood.
    pub max_invalidations_per_second: u32,
    /// Wait before restarting after a first fault; doubles with each fault
    /// in a row.
    pub restart_initial: Duration,
    /// Longest wait before a restart.
    pub restart_max: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 128 * 1024 * 1024,
            deadline: Duration::from_secs(5),
            max_invalidations_per_second: 100,
            restart_initial: Duration::from_millis(100),
            restart_max: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// How long to wait before restarting after `faults_in_a_row` faults:
    /// the initial wait, doubled for each fault after the first, capped.
    pub fn restart_wait(&self, faults_in_a_row: u32) -> Duration {
        let doubling = 2u32.saturating_pow(faults_in_a_row.saturating_sub(1).min(20));
        self.restart_initial
            .saturating_mul(doubling)
            .min(self.restart_max)
    }
}

/// Most table elements one store may grow to: tables hold function
/// references, and a provider needs a few thousand.
const MAX_TABLE_ELEMENTS: usize = 100_000;

/// Enforces the memory cap and remembers that it did, so the failure can be
/// reported as `memory` rather than as a generic trap.
pub(crate) struct Limiter {
    pub(crate) memory_bytes: usize,
    pub(crate) exceeded: bool,
}

impl Limiter {
    pub(crate) fn new(memory_bytes: usize) -> Self {
        Limiter {
            memory_bytes,
            exceeded: false,
        }
    }
}

/// The error that stops a guest growing its memory past the cap.
#[derive(Debug)]
pub(crate) struct MemoryCapExceeded {
    desired: usize,
    cap: usize,
}

impl std::fmt::Display for MemoryCapExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "memory grow to {} bytes refused: the cap is {} bytes",
            self.desired, self.cap
        )
    }
}

impl std::error::Error for MemoryCapExceeded {}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.exceeded = true;
            return Err(MemoryCapExceeded {
                desired,
                cap: self.memory_bytes,
            }
            .into());
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_back_off_doubling_up_to_the_cap() {
        let limits = Limits {
            restart_initial: Duration::from_millis(100),
            restart_max: Duration::from_secs(1),
            ..Limits::default()
        };
        let waits: Vec<u128> = (1..=6)
            .map(|n| limits.restart_wait(n).as_millis())
            .collect();
        assert_eq!(waits, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(limits.restart_wait(u32::MAX), Duration::from_secs(1));
    }
}
