//! The `files` capability: bulk, read-only access to a provider's granted
//! folders.
//!
//! It covers exactly the provider's mounts (the same ones preopened for
//! WASI) and resolves every path with cap-std beneath its mount, so `..` and
//! symlinks cannot leave the grant. Each call is bounded: a number of paths,
//! a byte budget, and the call's deadline, checked between files because host
//! code cannot be interrupted by the epoch.

use crate::bindings::files::{
    self, DirEntry, EntryKind, FileInfo, FileSlice, FsError, ReadResult, Stamp,
};
use crate::prefetch::Prefetch;
use crate::sandbox::HostState;
use cap_std::fs::Dir;
use std::io::{ErrorKind, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, UNIX_EPOCH};

/// Most paths one `read-files` or `stat-paths` call may name.
pub const MAX_PATHS_PER_CALL: usize = 16_384;
/// Most bytes one `read-files` call returns in all.
pub const MAX_BYTES_PER_CALL: u64 = 256 * 1024 * 1024;
/// Batches at least this long are read by several threads at once.
const PARALLEL_FROM: usize = 64;
/// Most threads reading one batch.
const MAX_READERS: usize = 4;
/// Most `prefetch` announcements one export call may make; later ones are
/// ignored.
pub const MAX_PREFETCHES_PER_CALL: u32 = 4;
/// Most entries one `list-dir` call returns.
pub const MAX_ENTRIES_PER_LISTING: usize = 100_000;

/// A granted folder, open for cap-std resolution.
#[derive(Clone)]
pub struct Mount {
    /// Its guest path.
    pub guest: String,
    /// The open folder, shared with read-ahead threads.
    pub dir: Arc<Dir>,
}

/// The mounts of one provider instance.
#[derive(Default, Clone)]
pub struct Mounts {
    mounts: Vec<Mount>,
    /// Granted roots that did not exist when the instance started: paths
    /// under them are missing, not outside the grant.
    absent: Vec<String>,
}

impl Mounts {
    /// Notes a granted root that does not exist (yet).
    pub fn absent(&mut self, guest: &str) {
        self.absent.push(guest.to_string());
    }

    /// Adds a mount.
    pub fn push(&mut self, guest: &str, dir: Dir) {
        self.mounts.push(Mount {
            guest: guest.to_string(),
            dir: Arc::new(dir),
        });
    }

    /// The deepest mount containing `guest` and the path relative to it
    /// (empty for the mount itself). Refuses paths that are not absolute
    /// and normalised.
    fn resolve<'p>(&self, guest: &'p str) -> Result<(&Dir, &'p str), FsError> {
        let normalised = guest.starts_with('/')
            && !guest.contains('\0')
            && guest[1..]
                .split('/')
                .all(|s| !s.is_empty() && s != "." && s != "..");
        if !normalised {
            return Err(FsError::Denied(format!(
                "{guest:?} is not an absolute, normalised path"
            )));
        }
        self.mounts
            .iter()
            .filter_map(|m| {
                let rest = guest.strip_prefix(m.guest.as_str())?;
                let rest = if rest.is_empty() {
                    rest
                } else {
                    rest.strip_prefix('/')?
                };
                Some((m.guest.len(), &*m.dir, rest))
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, dir, rest)| (dir, rest))
            .ok_or_else(|| {
                let under_absent = self.absent.iter().any(|root| {
                    guest
                        .strip_prefix(root.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                });
                if under_absent {
                    FsError::NotFound
                } else {
                    FsError::Denied(format!(
                        "{guest} is outside the folders granted to this provider"
                    ))
                }
            })
    }
}

fn error(e: std::io::Error) -> FsError {
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

fn kind_of(t: cap_std::fs::FileType) -> EntryKind {
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

fn stamp_of(meta: &cap_std::fs::Metadata) -> Stamp {
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

/// Appends the file at `rel` to `data`, with one `open`, one `stat` and
/// (for a file of the stat'ed size) one `read`.
fn read_one(
    dir: &Dir,
    rel: &str,
    max_bytes: u64,
    data: &mut Vec<u8>,
    budget: &AtomicU64,
) -> Result<FileSlice, FsError> {
    let mut file = dir.open(rel).map_err(error)?;
    let meta = file.metadata().map_err(error)?;
    if !meta.is_file() {
        return Err(FsError::Denied("not a regular file".to_string()));
    }
    if meta.len() > max_bytes {
        return Err(FsError::TooLarge(meta.len()));
    }
    if budget.load(Ordering::Relaxed) < meta.len() {
        return Err(FsError::Transient(
            "this call's byte budget is spent; ask again".to_string(),
        ));
    }
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
                return Err(error(e));
            }
        };
        filled += n;
        if n == 0 || filled < data.len() - offset {
            break;
        }
        if filled as u64 > max_bytes {
            data.truncate(offset);
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
        return Err(FsError::TooLarge(len));
    }
    let _ = budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
        Some(b.saturating_sub(len))
    });
    Ok(FileSlice {
        offset: offset as u64,
        len,
        stamp: stamp_of(&meta),
    })
}

/// Reads the file at guest path `path` (resolved beneath its mount) into
/// `data`, as [`read_one`] does.
pub(crate) fn read_path(
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

/// Appends a file read ahead to `data`, charging the call's byte budget.
fn append_ahead(
    read: Result<(Vec<u8>, FileSlice), FsError>,
    data: &mut Vec<u8>,
    budget: &AtomicU64,
) -> Result<FileSlice, FsError> {
    let (bytes, slice) = read?;
    let len = bytes.len() as u64;
    if budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(len))
        .is_err()
    {
        return Err(FsError::Transient(
            "this call's byte budget is spent; ask again".to_string(),
        ));
    }
    let offset = data.len() as u64;
    data.extend_from_slice(&bytes);
    Ok(FileSlice { offset, ..slice })
}

impl files::Host for HostState {
    fn list_dir(&mut self, path: String) -> Result<Vec<DirEntry>, FsError> {
        let (dir, rel) = self.mounts.resolve(&path)?;
        let entries = if rel.is_empty() {
            dir.entries()
        } else {
            dir.read_dir(rel)
        }
        .map_err(error)?;
        let mut out = Vec::new();
        for entry in entries {
            if out.len() >= MAX_ENTRIES_PER_LISTING {
                return Err(FsError::Denied(format!(
                    "{path} has more than {MAX_ENTRIES_PER_LISTING} entries"
                )));
            }
            let entry = entry.map_err(error)?;
            // A name that is not UTF-8 cannot name a skill or cross the WIT
            // boundary; it is left out.
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let kind = entry.file_type().map_or(EntryKind::Other, kind_of);
            out.push(DirEntry { name, kind });
        }
        Ok(out)
    }

    fn read_files(&mut self, paths: Vec<String>, max_bytes: u64) -> ReadResult {
        let deadline = self.call_deadline();
        let budget = AtomicU64::new(MAX_BYTES_PER_CALL);
        let mounts = &self.mounts;
        let ahead = self.prefetch.as_ref();
        let read = |index: usize, path: &String, data: &mut Vec<u8>| {
            if index >= MAX_PATHS_PER_CALL {
                return Err(FsError::Transient(format!(
                    "more than {MAX_PATHS_PER_CALL} paths in one call; ask again"
                )));
            }
            if Instant::now() >= deadline {
                return Err(FsError::Transient("the call's deadline passed".to_string()));
            }
            match ahead.and_then(|a| a.take(path, max_bytes)) {
                Some(read) => append_ahead(read, data, &budget),
                None => read_path(mounts, path, max_bytes, data, &budget),
            }
        };
        // With a read-ahead, its threads are the parallelism.
        let threads = if ahead.is_some() { 1 } else { MAX_READERS };
        let mut parts = in_chunks(&paths, threads, |first, part| {
            let mut data = Vec::new();
            let files: Vec<_> = part
                .iter()
                .enumerate()
                .map(|(i, path)| read(first + i, path, &mut data))
                .collect();
            ReadResult { data, files }
        });
        if parts.len() == 1
            && let Some(only) = parts.pop()
        {
            return only;
        }
        let mut data = Vec::with_capacity(parts.iter().map(|p| p.data.len()).sum());
        let mut files = Vec::with_capacity(paths.len());
        for part in parts {
            let base = data.len() as u64;
            data.extend_from_slice(&part.data);
            files.extend(part.files.into_iter().map(|r| {
                r.map(|slice| FileSlice {
                    offset: slice.offset + base,
                    ..slice
                })
            }));
        }
        ReadResult { data, files }
    }

    fn prefetch(&mut self, paths: Vec<String>, max_bytes: u64) {
        if paths.len() > MAX_PATHS_PER_CALL || self.prefetches_this_call >= MAX_PREFETCHES_PER_CALL
        {
            return;
        }
        self.prefetches_this_call += 1;
        // A new announcement replaces (and stops) the previous one.
        self.prefetch = None;
        self.prefetch =
            Prefetch::start(paths, max_bytes, self.mounts.clone(), self.call_deadline());
    }

    fn stat_paths(&mut self, paths: Vec<String>) -> Vec<Result<FileInfo, FsError>> {
        let deadline = self.call_deadline();
        let mounts = &self.mounts;
        let stat = |index: usize, path: &String| {
            if index >= MAX_PATHS_PER_CALL {
                return Err(FsError::Transient(format!(
                    "more than {MAX_PATHS_PER_CALL} paths in one call; ask again"
                )));
            }
            if Instant::now() >= deadline {
                return Err(FsError::Transient("the call's deadline passed".to_string()));
            }
            let (dir, rel) = mounts.resolve(path)?;
            let meta = if rel.is_empty() {
                dir.dir_metadata()
            } else {
                dir.metadata(rel)
            }
            .map_err(error)?;
            Ok(FileInfo {
                kind: kind_of(meta.file_type()),
                stamp: stamp_of(&meta),
            })
        };
        in_chunks(&paths, MAX_READERS, |first, part| {
            part.iter()
                .enumerate()
                .map(|(i, path)| stat(first + i, path))
                .collect::<Vec<_>>()
        })
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Runs `work(first_index, chunk)` over contiguous chunks of a batch, results
/// in order. A long batch is split over up to `max_threads` threads (the
/// guest cannot wait on two files at once; the host can); a short one is one
/// chunk, done inline.
fn in_chunks<T: Sync, R: Send>(
    items: &[T],
    max_threads: usize,
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let threads = if items.len() >= PARALLEL_FROM {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(max_threads)
    } else {
        1
    };
    if threads <= 1 {
        return vec![work(0, items)];
    }
    let chunk = items.len().div_ceil(threads);
    let work = &work;
    let parts = std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| scope.spawn(move || work(c * chunk, part)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join())
            .collect::<Result<Vec<R>, _>>()
    });
    // A worker only panics on a host bug; do the batch inline then.
    parts.unwrap_or_else(|_| vec![work(0, items)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_granted_root_that_does_not_exist_is_missing_not_forbidden() {
        let mut mounts = Mounts::default();
        mounts.absent("/skills/1");
        assert!(matches!(
            mounts.resolve("/skills/1"),
            Err(FsError::NotFound)
        ));
        assert!(matches!(
            mounts.resolve("/skills/1/pdf/SKILL.md"),
            Err(FsError::NotFound)
        ));
        assert!(matches!(
            mounts.resolve("/skills/10"),
            Err(FsError::Denied(_))
        ));
        assert!(matches!(mounts.resolve("/etc"), Err(FsError::Denied(_))));
    }

    #[test]
    fn resolves_through_the_deepest_mount_and_refuses_the_rest() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let mut mounts = Mounts::default();
        mounts.push(
            "/skills/0",
            Dir::open_ambient_dir(a.path(), cap_std::ambient_authority()).unwrap(),
        );
        mounts.push(
            "/skills/0/linked",
            Dir::open_ambient_dir(b.path(), cap_std::ambient_authority()).unwrap(),
        );
        assert_eq!(
            mounts.resolve("/skills/0/x/SKILL.md").unwrap().1,
            "x/SKILL.md"
        );
        assert_eq!(
            mounts.resolve("/skills/0/linked/SKILL.md").unwrap().1,
            "SKILL.md"
        );
        assert_eq!(mounts.resolve("/skills/0").unwrap().1, "");
        for bad in [
            "/skills/0/../x",
            "/skills/1/x",
            "relative",
            "/skills/0//x",
            "/skills/00",
        ] {
            assert!(
                matches!(mounts.resolve(bad), Err(FsError::Denied(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn long_batches_are_split_over_threads_and_joined_in_order() {
        let items: Vec<usize> = (0..1000).collect();
        let chunks = in_chunks(&items, MAX_READERS, |first, part| {
            assert_eq!(part.first(), Some(&first));
            part.iter().map(|i| i * 2).collect::<Vec<_>>()
        });
        if std::thread::available_parallelism().map_or(1, usize::from) > 1 {
            assert!(chunks.len() > 1, "a long batch is split");
        }
        let joined: Vec<usize> = chunks.into_iter().flatten().collect();
        assert_eq!(joined, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        let short: Vec<usize> = (0..PARALLEL_FROM - 1).collect();
        assert_eq!(
            in_chunks(&short, MAX_READERS, |_, part| part.len()),
            [short.len()]
        );
        assert_eq!(in_chunks(&items, 1, |_, part| part.len()), [items.len()]);
    }

    #[test]
    fn reads_stop_at_the_limit_and_escapes_are_denied() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("small"), b"12345").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", root.path().join("escape")).unwrap();
        let fifo = std::ffi::CString::new(
            root.path()
                .join("fifo")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
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
        assert_eq!(data, b"before12345", "failed reads leave nothing behind");
    }
}
