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
