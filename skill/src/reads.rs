//! How a filesystem provider reads a root's documents through the host:
//! in batches, announced for read-ahead first when there are many.
//!
//! The local provider reads this way, and the benchmark's native baseline
//! reads the same way through the host's own reader, so the two differ only
//! by the sandbox.

/// Documents read per `read-files` call.
pub const BATCH: usize = 64;

/// From this many documents on, they are announced (`prefetch`) before the
/// first batch is read, so the host reads the next batches while the
/// provider parses this one.
pub const READ_AHEAD_FROM: usize = 2 * BATCH;

/// The bytes `offset..offset + len` of a file of `size` bytes, cut to the
/// file: fewer at its end, none past it. A ranged read means the same on
/// both sides of the contract (a provider's default, the host's answer for
/// a 0.1.0 component, the conformance kit's expectation).
pub fn range_within(size: usize, offset: u64, len: u64) -> std::ops::Range<usize> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(size);
    let end = start
        .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
        .min(size);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_cut_to_the_file() {
        assert_eq!(range_within(10, 2, 3), 2..5);
        assert_eq!(range_within(10, 8, 5), 8..10);
        assert_eq!(range_within(10, 11, 5), 10..10);
        assert_eq!(range_within(10, u64::MAX, u64::MAX), 10..10);
        assert_eq!(range_within(0, 0, 0), 0..0);
    }
}
