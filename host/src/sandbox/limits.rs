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
    /// How long a provider that has never given a complete view may hold
    /// publication back (a root mid-checkout at start); after it, the
    /// others publish without it.
    pub startup_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 128 * 1024 * 1024,
            deadline: Duration::from_secs(5),
            max_invalidations_per_second: 100,
            restart_initial: Duration::from_millis(100),
            restart_max: Duration::from_secs(30),
            startup_grace: Duration::from_secs(10),
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

/// Most table elements across every table of one store: tables hold
/// function references, and a provider needs a few thousand.
pub const MAX_TABLE_ELEMENTS: usize = 100_000;
/// Most core instances one store may create. A Rust component for
/// `wasm32-wasip2` has a handful (its module, the adapter, shims).
pub const MAX_INSTANCES: usize = 32;
/// Most linear memories across one store's instances.
pub const MAX_MEMORIES: usize = 8;
/// Most tables across one store's instances.
pub const MAX_TABLES: usize = 32;
/// Most live resources (WASI descriptors, streams, pollables, HTTP
/// requests) one store holds at once: every host descriptor a provider
/// opens is one of them.
pub const MAX_HANDLES: usize = 1024;
/// Most bytes one call may pass from guest to host (wasmtime's "hostcall
/// fuel"), which bounds what the host allocates for one answer.
pub const MAX_CALL_BYTES: usize = 128 * 1024 * 1024;

/// Enforces the memory cap on the sum of every memory of the store (a
/// guest with many memories must not get the cap once per memory), the
/// table cap likewise, and the counts of instances, memories and tables;
/// it remembers that it refused, so the failure can be reported as
/// `memory` rather than as a generic trap.
pub(crate) struct Limiter {
    pub(crate) memory_bytes: usize,
    memory_total: usize,
    table_total: usize,
    pub(crate) exceeded: bool,
}

impl Limiter {
    pub(crate) fn new(memory_bytes: usize) -> Self {
        Limiter {
            memory_bytes,
            memory_total: 0,
            table_total: 0,
            exceeded: false,
        }
    }

    /// Bytes of linear memory the store's instances have grown to, in all.
    pub(crate) fn memory_total(&self) -> usize {
        self.memory_total
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
            "memory grow to {} bytes in all refused: the cap is {} bytes",
            self.desired, self.cap
        )
    }
}

impl std::error::Error for MemoryCapExceeded {}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Memories never shrink and live as long as the store, so a
        // running sum is exact. A growth that then fails in the OS stays
        // counted: that over-counts, which is the safe direction.
        let total = self
            .memory_total
            .saturating_add(desired.saturating_sub(current));
        if total > self.memory_bytes {
            self.exceeded = true;
            return Err(MemoryCapExceeded {
                desired: total,
                cap: self.memory_bytes,
            }
            .into());
        }
        self.memory_total = total;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let total = self
            .table_total
            .saturating_add(desired.saturating_sub(current));
        if total > MAX_TABLE_ELEMENTS {
            return Ok(false);
        }
        self.table_total = total;
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
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

    #[test]
    fn the_memory_cap_holds_for_every_memory_of_a_store_together() {
        let mut limiter = Limiter::new(100);
        // Two memories of 60 bytes each: the second passes alone, not together.
        assert!(limiter.memory_growing(0, 60, None).unwrap());
        assert!(limiter.memory_growing(0, 60, None).is_err());
        assert!(limiter.exceeded);
        // Growing the first by 40 still fits.
        let mut limiter = Limiter::new(100);
        assert!(limiter.memory_growing(0, 60, None).unwrap());
        assert!(limiter.memory_growing(60, 100, None).unwrap());
        assert!(limiter.memory_growing(100, 101, None).is_err());
    }

    #[test]
    fn table_elements_are_capped_across_tables() {
        let mut limiter = Limiter::new(100);
        assert!(
            limiter
                .table_growing(0, MAX_TABLE_ELEMENTS - 10, None)
                .unwrap()
        );
        assert!(!limiter.table_growing(0, 20, None).unwrap());
        assert!(limiter.table_growing(0, 10, None).unwrap());
    }

    #[test]
    fn a_store_may_create_only_a_few_instances_memories_and_tables() {
        let limiter = Limiter::new(100);
        assert_eq!(
            (limiter.instances(), limiter.memories(), limiter.tables()),
            (MAX_INSTANCES, MAX_MEMORIES, MAX_TABLES)
        );
    }
}
