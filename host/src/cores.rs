//! How many cores the host may use, for the places that spread work over
//! threads (batched reads, read-ahead, validating a large observation).

use std::sync::OnceLock;

/// The cores this process may use, asked once: the answer comes from the
/// cgroup files, and reading them on every batch cost more than the reads
/// it would have spread (a limit changed while running is seen on restart).
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}
