//! Read-ahead for the `files` capability.
//!
//! A provider that announces the files it is about to read (`prefetch`) can
//! parse one batch while background threads read the next: the guest has a
//! single thread and blocking calls, the host does not. What is read ahead is
//! handed over by `read-files` and dropped when the export call returns, so
//! nothing read ahead outlives the call it was read for.
//!
//! Bounded like every read: the call's deadline, the same path resolution
//! beneath the grants, a cap on bytes held ahead, and readers run on the
//! engine's bounded workers (when none is free, the hint is ignored).

use super::MAX_BYTES_PER_CALL;
use super::heads::head_len;
use super::mounts::Mounts;
use super::read::{Ahead, read_path};
use crate::cores::cores;
use crate::sandbox::Workers;
use crate::sandbox::bindings::latest::files::FsError;
use crate::sync::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

/// Most reader threads serving one read-ahead. The guest's own thread keeps
/// one core busy parsing; more readers than the cores left only contend.
const MAX_READERS_PER_PREFETCH: usize = 3;
/// Bytes read ahead and not yet handed over, past which readers pause
/// claiming files (the guest reads the rest itself).
pub const MAX_BYTES_AHEAD: u64 = 64 * 1024 * 1024;
/// Files read and not yet taken past which a reader, being well ahead, also
/// finds where each one's frontmatter ends. Behind that, the guest's
/// thread does it when it takes the file: whichever thread has time to
/// spare does the work (the guest's is busy parsing, a native reader's is
/// idle waiting for the disk).
const HEADS_WHEN_AHEAD_BY: usize = 8;
/// Buffers handed back for the readers to read into again, at most.
const MAX_SPARE_BUFFERS: usize = 64;
/// A buffer grown past this (a large file) is freed rather than kept.
const MAX_SPARE_CAPACITY: usize = 256 * 1024;

/// One file read ahead, or why not.
type Read = Result<Ahead, FsError>;

enum Slot {
    /// Not read (yet).
    Pending,
    /// Read, waiting to be handed over.
    Ready(Read),
    /// Handed over.
    Taken,
}

struct Shared {
    paths: Vec<String>,
    mounts: Mounts,
    max_bytes: u64,
    deadline: Instant,
    /// Whoever sets a path's flag first reads it: a reader, or the guest's
    /// own `read-files` when it gets there first.
    claimed: Vec<AtomicBool>,
    next: AtomicUsize,
    /// Files the guest's thread has got to so far (handed over, or read
    /// itself).
    taken: AtomicUsize,
    budget: AtomicU64,
    ahead: AtomicU64,
    cancelled: AtomicBool,
    slots: Mutex<Vec<Slot>>,
    ready: Condvar,
    /// Buffers the guest's thread is done with. Freeing a buffer on the
    /// thread that did not allocate it takes the allocator's slow path
    /// (its arena's lock, and often giving pages back that the reader
    /// faults in again), which can cost as much as reading the file.
    spare: Mutex<Vec<Vec<u8>>>,
}

/// A read-ahead in progress for one export call.
pub(crate) struct Prefetch {
    /// Where each path was announced, made on the first ask out of order.
    index: OnceLock<HashMap<String, usize>>,
    /// Where the next ask is expected: a guest reads in the order it
    /// announced, so the path there is compared before anything is looked
    /// up (hashing every path cost more than reading one).
    expected: AtomicUsize,
    shared: Arc<Shared>,
}

impl Prefetch {
    /// Starts reading `paths` on the engine's workers, at most `budget`
    /// bytes in all (what the guest could still receive); `None` when no
    /// worker took a reader (the hint is then ignored).
    pub(crate) fn start(
        workers: &Workers,
        paths: Vec<String>,
        max_bytes: u64,
        mounts: Mounts,
        deadline: Instant,
        budget: u64,
    ) -> Option<Prefetch> {
        if paths.is_empty() {
            return None;
        }
        let wanted = cores()
            .saturating_sub(1)
            .clamp(1, MAX_READERS_PER_PREFETCH)
            .min(paths.len());
        let shared = Arc::new(Shared {
            claimed: paths.iter().map(|_| AtomicBool::new(false)).collect(),
            slots: Mutex::new(paths.iter().map(|_| Slot::Pending).collect()),
            paths,
            mounts,
            max_bytes,
            deadline,
            next: AtomicUsize::new(0),
            taken: AtomicUsize::new(0),
            budget: AtomicU64::new(budget.min(MAX_BYTES_PER_CALL)),
            ahead: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            ready: Condvar::new(),
            spare: Mutex::new(Vec::new()),
        });
        // A reader a worker has not started yet finds the read-ahead
        // cancelled or done when it starts, and ends at once.
        let started = (0..wanted)
            .take_while(|_| {
                let reader = shared.clone();
                workers.spawn(move || reader.run())
            })
            .count();
        (started > 0).then_some(Prefetch {
            index: OnceLock::new(),
            expected: AtomicUsize::new(0),
            shared,
        })
    }

    /// The read of `path` done ahead, waiting for it if a reader has it in
    /// hand. `None`: it was not announced (with this `max_bytes`), or no
    /// reader got to it — the caller reads it itself.
    pub(crate) fn take(&self, path: &str, max_bytes: u64) -> Option<Read> {
        let shared = &self.shared;
        if max_bytes != shared.max_bytes {
            return None;
        }
        let expected = self.expected.load(Ordering::Relaxed);
        let i = match shared.paths.get(expected) {
            Some(next) if next == path => expected,
            _ => *self.announced().get(path)?,
        };
        self.expected.store(i + 1, Ordering::Relaxed);
        if !shared.claimed[i].swap(true, Ordering::AcqRel) {
            // No reader claimed it; nor will one now.
            lock(&shared.slots)[i] = Slot::Taken;
            shared.taken.fetch_add(1, Ordering::AcqRel);
            return None;
        }
        let mut slots = lock(&shared.slots);
        while matches!(slots[i], Slot::Pending) {
            let now = Instant::now();
            if now >= shared.deadline {
                return Some(Err(FsError::Transient(
                    "the call's deadline passed".to_string(),
                )));
            }
            slots = shared
                .ready
                .wait_timeout(slots, shared.deadline - now)
                .map_or_else(|p| p.into_inner().0, |(guard, _)| guard);
        }
        match std::mem::replace(&mut slots[i], Slot::Taken) {
            Slot::Ready(read) => {
                shared.taken.fetch_add(1, Ordering::AcqRel);
                if let Ok(ahead) = &read {
                    shared
                        .ahead
                        .fetch_sub(ahead.bytes.len() as u64, Ordering::AcqRel);
                }
                Some(read)
            }
            // Asked for twice: the second time is read afresh.
            Slot::Taken | Slot::Pending => None,
        }
    }
}

impl Prefetch {
    /// Where each path was first announced.
    fn announced(&self) -> &HashMap<String, usize> {
        self.index.get_or_init(|| {
            let mut index = HashMap::with_capacity(self.shared.paths.len());
            for (i, path) in self.shared.paths.iter().enumerate() {
                index.entry(path.clone()).or_insert(i);
            }
            index
        })
    }

    /// Hands the buffer of a file taken back to the readers.
    pub(crate) fn give_back(&self, mut bytes: Vec<u8>) {
        if bytes.capacity() > MAX_SPARE_CAPACITY {
            return;
        }
        let mut spare = lock(&self.shared.spare);
        if spare.len() < MAX_SPARE_BUFFERS {
            bytes.clear();
            spare.push(bytes);
        }
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.shared.cancelled.store(true, Ordering::Release);
    }
}

impl Shared {
    fn run(&self) {
        loop {
            if self.cancelled.load(Ordering::Acquire)
                || Instant::now() >= self.deadline
                || self.ahead.load(Ordering::Acquire) >= MAX_BYTES_AHEAD
            {
                return;
            }
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            let Some(path) = self.paths.get(i) else {
                return;
            };
            if self.claimed[i].swap(true, Ordering::AcqRel) {
                continue;
            }
            let mut data = lock(&self.spare).pop().unwrap_or_default();
            let read = read_path(&self.mounts, path, self.max_bytes, &mut data, &self.budget).map(
                |slice| {
                    self.ahead.fetch_add(slice.len, Ordering::AcqRel);
                    let lead = i.saturating_sub(self.taken.load(Ordering::Acquire));
                    let head = (lead >= HEADS_WHEN_AHEAD_BY).then(|| head_len(&data));
                    Ahead {
                        bytes: data,
                        slice,
                        head,
                    }
                },
            );
            lock(&self.slots)[i] = Slot::Ready(read);
            self.ready.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;
    use cap_std::fs::Dir;
    use std::time::Duration;

    /// The reader cap is process-wide: these tests take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn turn() -> std::sync::MutexGuard<'static, ()> {
        crate::sync::lock(&SERIAL)
    }

    fn mounted(root: &std::path::Path) -> Mounts {
        let mut mounts = Mounts::default();
        let dir = Dir::open_ambient_dir(root, ambient_authority()).expect("open the root");
        mounts.push("/skills/0", dir);
        mounts
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    /// `paths` beneath `root` being read ahead on the tests' pool of four.
    fn started(paths: Vec<String>, root: &std::path::Path) -> Prefetch {
        static POOL: OnceLock<Workers> = OnceLock::new();
        let workers = POOL.get_or_init(|| Workers::new(4));
        Prefetch::start(
            workers,
            paths,
            1024,
            mounted(root),
            soon(),
            MAX_BYTES_PER_CALL,
        )
        .expect("readers")
    }

    /// `count` files `0.md`.. holding `file N`, and their guest paths.
    fn numbered_files(count: usize) -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = (0..count)
            .map(|i| {
                std::fs::write(dir.path().join(format!("{i}.md")), format!("file {i}"))
                    .expect("write");
                format!("/skills/0/{i}.md")
            })
            .collect();
        (dir, paths)
    }

    fn wait_until_read(prefetch: &Prefetch) {
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            let slots = lock(&prefetch.shared.slots);
            if slots.iter().all(|s| matches!(s, Slot::Ready(_))) {
                return;
            }
            drop(slots);
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("the readers did not finish");
    }

    #[test]
    fn announced_files_are_handed_over_with_their_bytes_and_stamps() {
        let _turn = turn();
        let (dir, paths) = numbered_files(50);
        let prefetch = started(paths.clone(), dir.path());
        wait_until_read(&prefetch);
        for (i, path) in paths.iter().enumerate().rev() {
            let expected = format!("file {i}");
            match prefetch.take(path, 1024) {
                Some(Ok(Ahead { bytes, slice, .. })) => {
                    assert_eq!(bytes, expected.as_bytes());
                    assert_eq!(slice.offset, 0);
                    assert_eq!(slice.len, expected.len() as u64);
                    assert_eq!(slice.stamp.size, expected.len() as u64);
                }
                other => panic!("{path}: {other:?}"),
            }
            // Handed over once; a second ask reads afresh.
            assert!(prefetch.take(path, 1024).is_none());
        }
        assert_eq!(prefetch.shared.ahead.load(Ordering::Acquire), 0);
    }

    #[test]
    fn files_asked_for_in_order_or_out_of_it_are_handed_over_once() {
        let _turn = turn();
        let (dir, mut paths) = numbered_files(20);
        // Announced twice: each announcement is its own read.
        paths.push("/skills/0/3.md".to_string());
        let prefetch = started(paths.clone(), dir.path());
        wait_until_read(&prefetch);
        let bytes = |read: Option<Read>| match read {
            Some(Ok(ahead)) => String::from_utf8(ahead.bytes).expect("text"),
            other => panic!("{other:?}"),
        };
        for (i, path) in paths.iter().enumerate().take(10) {
            assert_eq!(bytes(prefetch.take(path, 1024)), format!("file {i}"));
        }
        // Out of order, then in order again from there.
        assert_eq!(bytes(prefetch.take(&paths[15], 1024)), "file 15");
        for (i, path) in paths.iter().enumerate().take(20).skip(16) {
            assert_eq!(bytes(prefetch.take(path, 1024)), format!("file {i}"));
        }
        assert_eq!(bytes(prefetch.take("/skills/0/3.md", 1024)), "file 3");
        assert_eq!(bytes(prefetch.take(&paths[10], 1024)), "file 10");
        // Everything announced was handed over; asking again reads afresh.
        assert!(prefetch.take(&paths[0], 1024).is_none());
        assert!(prefetch.take("/skills/0/3.md", 1024).is_none());
    }

    #[test]
    fn a_path_no_reader_reached_is_left_to_the_caller() {
        let _turn = turn();
        let dir = tempfile::tempdir().expect("tempdir");
        let paths: Vec<String> = (0..50_000).map(|i| format!("/skills/0/{i}.md")).collect();
        let last = paths[paths.len() - 1].clone();
        let prefetch = started(paths, dir.path());
        // The readers go in order; the last of 50,000 is not reached yet.
        assert!(prefetch.take(&last, 1024).is_none());
    }

    #[test]
    fn paths_outside_the_grants_are_refused_in_the_background_too() {
        let _turn = turn();
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = vec![
            "/etc/passwd".to_string(),
            "/skills/0/../../etc/passwd".to_string(),
        ];
        let prefetch = started(paths.clone(), dir.path());
        wait_until_read(&prefetch);
        for path in &paths {
            let read = prefetch.take(path, 1024);
            assert!(
                matches!(read, Some(Err(FsError::Denied(_)))),
                "{path}: {read:?}"
            );
        }
    }

    #[test]
    fn a_different_limit_or_an_unannounced_path_is_not_served() {
        let _turn = turn();
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "a").expect("write");
        let paths = vec!["/skills/0/a.md".to_string()];
        let prefetch = started(paths, dir.path());
        assert!(prefetch.take("/skills/0/a.md", 2048).is_none());
        assert!(prefetch.take("/skills/0/b.md", 1024).is_none());
    }

    #[test]
    fn without_a_free_worker_the_hint_is_ignored() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), b"a").expect("write");
        let paths = vec!["/skills/0/a.md".to_string()];
        let none = Workers::new(0);
        assert!(
            Prefetch::start(
                &none,
                paths,
                1024,
                mounted(dir.path()),
                soon(),
                MAX_BYTES_PER_CALL
            )
            .is_none()
        );
    }

    #[test]
    fn dropping_a_prefetch_stops_its_readers() {
        let _turn = turn();
        let dir = tempfile::tempdir().expect("tempdir");
        let paths: Vec<String> = (0..50_000).map(|i| format!("/skills/0/{i}.md")).collect();
        let prefetch = started(paths, dir.path());
        let shared = prefetch.shared.clone();
        drop(prefetch);
        let until = Instant::now() + Duration::from_secs(10);
        // Only this test's handle is left once every reader has returned.
        while Arc::strong_count(&shared) > 1 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(Arc::strong_count(&shared), 1, "a reader is still running");
        // They stopped long before the end of the list.
        assert!(shared.next.load(Ordering::Acquire) < 50_000);
    }
}
