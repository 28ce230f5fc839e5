//! Reading and stat'ing beneath a mount, bounded: a size limit per file, a
//! byte budget per call (shared by its threads), and the call's deadline,
//! checked between files because host code cannot be interrupted by the
//! epoch.

use super::heads::Keep;
use super::mounts::Mounts;
use crate::cores::cores;
use crate::sandbox::bindings::latest::files::{EntryKind, FileSlice, FsError, Stamp};
use crate::sandbox::{Pending, Workers};
use cap_fs_ext::OpenOptionsSyncExt;
use cap_std::fs::Dir;
use std::io::{ErrorKind, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

/// Batches at least this long are read by several threads at once.
const PARALLEL_FROM: usize = 64;

pub(super) fn error(e: std::io::Error) -> FsError {
    match e.kind() {
        ErrorKind::NotFound => FsError::NotFound,
        ErrorKind::PermissionDenied
        | ErrorKind::NotADirectory
        | ErrorKind::IsADirectory
        | ErrorKind::InvalidInput
        | ErrorKind::InvalidFilename
        | ErrorKind::InvalidData => FsError::Denied(e.to_string()),
        // ELOOP has no stable ErrorKind.
        _ if e.raw_os_error() == Some(40) => FsError::Denied("symlink loop".to_string()),
        _ => FsError::Transient(e.to_string()),
    }
}

pub(super) fn kind_of(t: cap_std::fs::FileType) -> EntryKind {
    if t.is_file() {
        EntryKind::File
    } else if t.is_dir() {
        EntryKind::Directory
    } else if t.is_symlink() {
        EntryKind::Symlink
    } else {
        EntryKind::Other
    }
}

pub(super) fn stamp_of(meta: &cap_std::fs::Metadata) -> Stamp {
    let modified_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.into_std().duration_since(UNIX_EPOCH).ok())
        .and_then(|d| u64::try_from(d.as_nanos()).ok());
    Stamp {
        size: meta.len(),
        modified_ns,
    }
}

/// Opens `rel` beneath `dir` for reading without ever waiting: a FIFO, a
/// socket or a device is opened non-blocking (so a FIFO with no writer
/// cannot hold the host thread, which the call's deadline cannot stop) and
/// refused once `fstat` says what it is. The check is on the opened
/// descriptor, so nothing can be swapped in between. A socket cannot be
/// opened at all (`ENXIO`): that is the same refusal, not a transient
/// failure that would leave the provider's view incomplete.
pub(crate) fn open_regular(
    dir: &Dir,
    rel: &str,
) -> Result<(cap_std::fs::File, cap_std::fs::Metadata), FsError> {
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true).nonblock(true);
    let file = dir.open_with(rel, &options).map_err(|e| {
        if e.raw_os_error() == Some(libc::ENXIO) {
            FsError::Denied("not a regular file".to_string())
        } else {
            error(e)
        }
    })?;
    let meta = file.metadata().map_err(error)?;
    if !meta.is_file() {
        return Err(FsError::Denied("not a regular file".to_string()));
    }
    Ok((file, meta))
}

/// Appends the file at `rel` to `data`, with one `open`, one `stat` and
/// (for a file of the stat'ed size) one `read`.
fn read_one(
    dir: &Dir,
    rel: &str,
    max_bytes: u64,
    data: &mut Vec<u8>,
    budget: &AtomicU64,
) -> Result<FileSlice, FsError> {
    let (mut file, meta) = open_regular(dir, rel)?;
    if meta.len() > max_bytes {
        return Err(FsError::TooLarge(meta.len()));
    }
    // Reserved before reading, so the call's threads together never read
    // past the budget (a check then a charge would let each overshoot).
    let reserved = meta.len();
    if budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
            b.checked_sub(reserved)
        })
        .is_err()
    {
        return Err(FsError::Transient(
            "this call's byte budget is spent; ask again".to_string(),
        ));
    }
    let refund = |budget: &AtomicU64| {
        budget.fetch_add(reserved, Ordering::Relaxed);
    };
    let offset = data.len();
    // Asking for one byte more than the stat'ed size tells a complete read
    // (short) from a file that grew since (full), without a second call.
    let want = usize::try_from(meta.len())
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    data.resize(offset + want, 0);
    let mut filled = 0;
    loop {
        let n = match file.read(&mut data[offset + filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                data.truncate(offset);
                refund(budget);
                return Err(error(e));
            }
        };
        filled += n;
        if n == 0 || filled < data.len() - offset {
            break;
        }
        if filled as u64 > max_bytes {
            data.truncate(offset);
            refund(budget);
            return Err(FsError::TooLarge(filled as u64));
        }
        // The file grew while being read: make room and keep going.
        let grown = (data.len() - offset).saturating_mul(2);
        data.resize(offset + grown, 0);
    }
    data.truncate(offset + filled);
    let len = filled as u64;
    if len > max_bytes {
        data.truncate(offset);
        refund(budget);
        return Err(FsError::TooLarge(len));
    }
    // Settle the reservation with what was read: a file that shrank gives
    // bytes back, one that grew takes what is left.
    let _ = budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
        Some(b.saturating_add(reserved).saturating_sub(len))
    });
    Ok(FileSlice {
        offset: offset as u64,
        len,
        stamp: stamp_of(&meta),
    })
}

/// Reads the file at guest path `path` (resolved beneath its mount) into
/// `data`, as [`read_one`] does.
pub(super) fn read_path(
    mounts: &Mounts,
    path: &str,
    max_bytes: u64,
    data: &mut Vec<u8>,
    budget: &AtomicU64,
) -> Result<FileSlice, FsError> {
    let (dir, rel) = mounts.resolve(path)?;
    if rel.is_empty() {
        return Err(FsError::Denied("is a directory".to_string()));
    }
    read_one(dir, rel, max_bytes, data, budget)
}

/// Appends what is kept of a file read ahead to `data`, charging the
/// call's byte budget for the whole file (as a read on the spot would).
pub(super) fn append_ahead(
    file: &Ahead,
    data: &mut Vec<u8>,
    budget: &AtomicU64,
    keep: Keep,
) -> Result<FileSlice, FsError> {
    let len = file.bytes.len() as u64;
    if budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(len))
        .is_err()
    {
        return Err(FsError::Transient(
            "this call's byte budget is spent; ask again".to_string(),
        ));
    }
    let kept = keep.of(&file.bytes, file.head);
    let offset = data.len() as u64;
    data.extend_from_slice(kept);
    Ok(FileSlice {
        offset,
        len: kept.len() as u64,
        ..file.slice
    })
}

/// A file read ahead: its bytes, where they sit (offset 0), and where its
/// frontmatter ends when the reader had time to find out.
#[derive(Debug)]
pub(super) struct Ahead {
    pub(super) bytes: Vec<u8>,
    pub(super) slice: FileSlice,
    pub(super) head: Option<usize>,
}

/// Runs `work(first_index, chunk)` over contiguous chunks of a batch, results
/// in order. A long batch is split over up to `max_threads` threads (the
/// guest cannot wait on two files at once; the host can): the first chunk
/// here, the others handed to the engine's workers, and any no worker took
/// by the time they are wanted done here too. A short one is one chunk,
/// done inline.
pub(super) fn in_chunks<T, R, W>(
    workers: &Workers,
    items: Arc<Vec<T>>,
    max_threads: usize,
    work: W,
) -> Vec<R>
where
    T: Send + Sync + 'static,
    R: Send + 'static,
    W: Fn(usize, &[T]) -> R + Send + Sync + 'static,
{
    let threads = if items.len() >= PARALLEL_FROM && max_threads > 1 {
        cores().min(max_threads)
    } else {
        1
    };
    if threads <= 1 {
        return vec![work(0, &items)];
    }
    let chunk = items.len().div_ceil(threads);
    let work = Arc::new(work);
    let rest: Vec<_> = (1..items.len().div_ceil(chunk))
        .map(|c| {
            let (items, work) = (items.clone(), work.clone());
            workers.submit(move || {
                let first = c * chunk;
                work(first, &items[first..(first + chunk).min(items.len())])
            })
        })
        .collect();
    let mut parts = Vec::with_capacity(rest.len() + 1);
    parts.push(work(0, &items[..chunk]));
    parts.extend(rest.into_iter().map(Pending::join));
    parts
}

#[cfg(test)]
mod tests {
    use super::super::{MAX_BYTES_PER_CALL, MAX_READERS};
    use super::*;

    #[test]
    fn long_batches_are_split_over_threads_and_joined_in_order() {
        let workers = Workers::new(4);
        let items: Arc<Vec<usize>> = Arc::new((0..1000).collect());
        let chunks = in_chunks(&workers, items.clone(), MAX_READERS, |first, part| {
            assert_eq!(part.first(), Some(&first));
            part.iter().map(|i| i * 2).collect::<Vec<_>>()
        });
        if cores() > 1 {
            assert!(chunks.len() > 1, "a long batch is split");
        }
        let joined: Vec<usize> = chunks.into_iter().flatten().collect();
        assert_eq!(joined, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        let short: Arc<Vec<usize>> = Arc::new((0..PARALLEL_FROM - 1).collect());
        assert_eq!(
            in_chunks(&workers, short.clone(), MAX_READERS, |_, part| part.len()),
            [short.len()]
        );
        assert_eq!(
            in_chunks(&workers, items.clone(), 1, |_, part| part.len()),
            [items.len()]
        );
    }

    #[test]
    fn a_pool_of_no_threads_still_reads_every_chunk_in_order() {
        let workers = Workers::new(0);
        let items: Arc<Vec<usize>> = Arc::new((0..1000).collect());
        let chunks = in_chunks(&workers, items, MAX_READERS, |first, part| {
            assert_eq!(part.first(), Some(&first));
            part.to_vec()
        });
        let joined: Vec<usize> = chunks.into_iter().flatten().collect();
        assert_eq!(joined, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn reads_stop_at_the_limit_and_escapes_are_denied() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("small"), b"12345").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", root.path().join("escape")).unwrap();
        crate::paths::mkfifo(&root.path().join("fifo"));
        let dir = Dir::open_ambient_dir(root.path(), cap_std::ambient_authority()).unwrap();
        let budget = AtomicU64::new(MAX_BYTES_PER_CALL);
        let mut data = b"before".to_vec();
        let slice = read_one(&dir, "small", 10, &mut data, &budget).unwrap();
        assert_eq!((slice.offset, slice.len), (6, 5));
        assert_eq!(data, b"before12345");
        assert!(matches!(
            read_one(&dir, "small", 4, &mut data, &budget),
            Err(FsError::TooLarge(5))
        ));
        assert!(matches!(
            read_one(&dir, "escape", 10, &mut data, &budget),
            Err(FsError::Denied(_))
        ));
        assert!(matches!(
            read_one(&dir, "missing", 10, &mut data, &budget),
            Err(FsError::NotFound)
        ));
        // A FIFO with no writer is refused at once, never waited on.
        let started = std::time::Instant::now();
        assert!(matches!(
            read_one(&dir, "fifo", 10, &mut data, &budget),
            Err(FsError::Denied(m)) if m == "not a regular file"
        ));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(data, b"before12345", "failed reads leave nothing behind");
    }
}
