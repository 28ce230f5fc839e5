//! The `files` capability: bulk, read-only access to a provider's granted
//! folders.
//!
//! It covers exactly the provider's mounts (the same ones preopened for
//! WASI) and resolves every path beneath its mount, so `..` and symlinks
//! cannot leave the grant. One call reads or stats a whole batch, where
//! WASI needs three or four calls per file. Each call is bounded: a number
//! of paths, a byte budget, and the call's deadline.

mod heads;
mod listing;
mod mounts;
// The host's own reader over these calls, for the bench crate's native
// baseline only.
#[cfg(feature = "bench-internals")]
mod native;
mod prefetch;
mod range;
mod read;

pub(crate) use listing::{Listed, list};
pub(crate) use mounts::Mounts;
#[cfg(feature = "bench-internals")]
pub use native::{HostReader, ReadError, ReaderCall, Reads};

use crate::sandbox::Workers;
use crate::sandbox::bindings::latest::files::{
    self, DirEntry, FileInfo, FileSlice, FsError, ReadResult, Stamp,
};
use heads::Keep;
use prefetch::Prefetch;
use read::{append_ahead, error, in_chunks, kind_of, read_path, stamp_of};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// Most paths one `read-files` or `stat-paths` call may name.
pub const MAX_PATHS_PER_CALL: usize = 16_384;
/// Most bytes one `read-files` call returns in all.
pub const MAX_BYTES_PER_CALL: u64 = 256 * 1024 * 1024;
/// Most threads reading one batch.
const MAX_READERS: usize = 4;
/// Most `prefetch` announcements one export call may make; later ones are
/// ignored.
pub const MAX_PREFETCHES_PER_CALL: u32 = 4;

/// The `files` state of one instance.
pub(crate) struct FilesCtx {
    mounts: Mounts,
    /// The engine's workers, which read ahead and split long batches.
    workers: Workers,
    /// Files the current call announced it will read, being read ahead.
    prefetch: Option<Arc<Prefetch>>,
    prefetches_this_call: u32,
    /// The grant's listing of each root, for this call's first `list-dir`
    /// of it (see `listing`).
    listed: Listed,
}

impl FilesCtx {
    pub(crate) fn new(mounts: Mounts, workers: Workers) -> Self {
        FilesCtx {
            mounts,
            workers,
            prefetch: None,
            prefetches_this_call: 0,
            listed: Listed::default(),
        }
    }

    /// The grant's listings of the roots answer their first `list-dir` in
    /// the next call only.
    pub(crate) fn answer_first_listings(&mut self, listed: Listed) {
        self.listed = listed;
    }

    /// Nothing read ahead outlives the call it was read for, nor does a
    /// listing the grant took.
    pub(crate) fn end_call(&mut self) {
        self.prefetch = None;
        self.prefetches_this_call = 0;
        self.listed = Listed::default();
    }
}

fn too_many(index: usize) -> Option<FsError> {
    (index >= MAX_PATHS_PER_CALL).then(|| {
        FsError::Transient(format!(
            "more than {MAX_PATHS_PER_CALL} paths in one call; ask again"
        ))
    })
}

fn past(deadline: Instant) -> Option<FsError> {
    (Instant::now() >= deadline)
        .then(|| FsError::Transient("the call's deadline passed".to_string()))
}

/// The capability's calls, shared by the guest's imports (below) and the
/// host's native reader (`HostReader`), so both read the same way.
impl FilesCtx {
    pub(crate) fn list_dir(&mut self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        if let Some(entries) = self.listed.take(path) {
            return Ok(entries);
        }
        let (dir, rel) = self.mounts.resolve(path)?;
        list(dir, rel, path)
    }

    pub(crate) fn read_files(
        &self,
        paths: Vec<String>,
        max_bytes: u64,
        deadline: Instant,
        receivable: u64,
    ) -> ReadResult {
        self.read_batch(paths, max_bytes, deadline, Keep::Whole, receivable)
    }

    /// Reads a batch (read-ahead, threads, budget, deadline), keeping of
    /// each file what `keep` says. The call's budget is what the guest can
    /// still receive (`receivable`), within [`MAX_BYTES_PER_CALL`]: a guest
    /// capped at 32 MiB asking for 256 copies of an 8 MiB file makes the
    /// host read up to what it could take, and the rest answers
    /// `transient`, instead of the host holding all of it for an answer
    /// the guest could never lower.
    fn read_batch(
        &self,
        paths: Vec<String>,
        max_bytes: u64,
        deadline: Instant,
        keep: Keep,
        receivable: u64,
    ) -> ReadResult {
        let budget = AtomicU64::new(receivable.min(MAX_BYTES_PER_CALL));
        let mounts = self.mounts.clone();
        let ahead = self.prefetch.clone();
        // With a read-ahead, its readers are the parallelism.
        let threads = if ahead.is_some() || !self.workers.speedups().parallel_reads {
            1
        } else {
            MAX_READERS
        };
        let count = paths.len();
        let read = move |index: usize, path: &String, data: &mut Vec<u8>| {
            if let Some(e) = too_many(index).or_else(|| past(deadline)) {
                return Err(e);
            }
            match ahead
                .as_ref()
                .and_then(|a| Some((a, a.take(path, max_bytes)?)))
            {
                Some((_, Err(e))) => Err(e),
                Some((a, Ok(file))) => {
                    let slice = append_ahead(&file, data, &budget, keep);
                    a.give_back(file.bytes);
                    slice
                }
                None => read_path(&mounts, path, max_bytes, data, &budget)
                    .map(|slice| keep.cut(data, slice)),
            }
        };
        let mut parts = in_chunks(
            &self.workers,
            Arc::new(paths),
            threads,
            move |first, part| {
                let mut data = Vec::new();
                let files: Vec<_> = part
                    .iter()
                    .enumerate()
                    .map(|(i, path)| read(first + i, path, &mut data))
                    .collect();
                ReadResult { data, files }
            },
        );
        if parts.len() == 1
            && let Some(only) = parts.pop()
        {
            return only;
        }
        // Each part is dropped as soon as it is appended, so the host holds
        // the answer about once, not once in parts and again joined.
        let total: usize = parts.iter().map(|p| p.data.len()).sum();
        let mut parts = parts.into_iter();
        let (mut data, mut files) = match parts.next() {
            Some(first) => (first.data, first.files),
            None => (Vec::new(), Vec::new()),
        };
        data.reserve_exact(total - data.len());
        files.reserve_exact(count.saturating_sub(files.len()));
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

    pub(crate) fn prefetch(
        &mut self,
        paths: Vec<String>,
        max_bytes: u64,
        deadline: Instant,
        receivable: u64,
    ) {
        let ctx = self;
        if paths.len() > MAX_PATHS_PER_CALL || ctx.prefetches_this_call >= MAX_PREFETCHES_PER_CALL {
            return;
        }
        ctx.prefetches_this_call += 1;
        // A new announcement replaces (and stops) the previous one.
        ctx.prefetch = None;
        if !ctx.workers.speedups().read_ahead {
            return;
        }
        ctx.prefetch = Prefetch::start(
            &ctx.workers,
            paths,
            max_bytes,
            ctx.mounts.clone(),
            deadline,
            receivable,
        )
        .map(Arc::new);
    }

    pub(crate) fn stat_paths(
        &self,
        paths: Vec<String>,
        deadline: Instant,
    ) -> Vec<Result<FileInfo, FsError>> {
        let mounts = self.mounts.clone();
        let stat = move |index: usize, path: &String| {
            if let Some(e) = too_many(index).or_else(|| past(deadline)) {
                return Err(e);
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
        let threads = match self.workers.speedups().parallel_reads {
            true => MAX_READERS,
            false => 1,
        };
        in_chunks(
            &self.workers,
            Arc::new(paths),
            threads,
            move |first, part| {
                part.iter()
                    .enumerate()
                    .map(|(i, path)| stat(first + i, path))
                    .collect::<Vec<_>>()
            },
        )
        .into_iter()
        .flatten()
        .collect()
    }

    /// `read-frontmatters`: read exactly as `read-files` reads (read-ahead,
    /// threads, budget, deadline); only what crosses into the guest is cut.
    pub(crate) fn read_frontmatters(
        &self,
        paths: Vec<String>,
        max_bytes: u64,
        deadline: Instant,
        receivable: u64,
    ) -> ReadResult {
        self.read_batch(paths, max_bytes, deadline, Keep::Head, receivable)
    }

    /// `read-range`.
    pub(crate) fn read_range(
        &self,
        path: &str,
        offset: u64,
        len: u64,
        deadline: Instant,
    ) -> Result<(Vec<u8>, Stamp), FsError> {
        if let Some(e) = past(deadline) {
            return Err(e);
        }
        range::read_range(&self.mounts, path, offset, len)
    }
}

/// What the `files` interface sees of the store during one host call: its
/// own context, the call's deadline, and the bytes the guest could still
/// take into its memory (its cap less what its memory has grown to), which
/// bounds what one read may bring across.
pub(crate) struct FilesView<'a> {
    pub(crate) files: &'a mut FilesCtx,
    pub(crate) deadline: Instant,
    pub(crate) receivable: u64,
}

/// Names [`FilesView`] to the linker.
pub(crate) struct FilesData;

impl wasmtime::component::HasData for FilesData {
    type Data<'a> = FilesView<'a>;
}

impl files::Host for FilesView<'_> {
    fn list_dir(&mut self, path: String) -> Result<Vec<DirEntry>, FsError> {
        self.files.list_dir(&path)
    }

    fn read_files(&mut self, paths: Vec<String>, max_bytes: u64) -> ReadResult {
        self.files
            .read_files(paths, max_bytes, self.deadline, self.receivable)
    }

    fn prefetch(&mut self, paths: Vec<String>, max_bytes: u64) {
        self.files
            .prefetch(paths, max_bytes, self.deadline, self.receivable);
    }

    fn stat_paths(&mut self, paths: Vec<String>) -> Vec<Result<FileInfo, FsError>> {
        self.files.stat_paths(paths, self.deadline)
    }

    fn read_frontmatters(&mut self, paths: Vec<String>, max_bytes: u64) -> ReadResult {
        self.files
            .read_frontmatters(paths, max_bytes, self.deadline, self.receivable)
    }

    fn read_range(
        &mut self,
        path: String,
        offset: u64,
        len: u64,
    ) -> Result<(Vec<u8>, Stamp), FsError> {
        self.files.read_range(&path, offset, len, self.deadline)
    }
}
