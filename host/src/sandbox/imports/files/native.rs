//! The `files` capability called from the host itself: a native program
//! that reads granted folders exactly as a sandboxed provider does, through
//! the same calls (resolution beneath the same grants, batched reads on the
//! same threads, the same read-ahead, the same limits). The benchmark's
//! native baseline reads through it, so its ratio measures the sandbox and
//! not a different way of reading.

use super::{FilesCtx, Mounts};
use crate::sandbox::bindings::latest::files::{self as wit, FsError, ReadResult};
use crate::sandbox::{Grants, Limits, Workers};
use skillhost_skill::layout::EntryKind;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Why a path could not be listed, stat'ed or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// It does not exist (any more).
    #[error("does not exist")]
    NotFound,
    /// It is larger than the limit asked for (its size).
    #[error("file is larger than the limit ({0} bytes)")]
    TooLarge(u64),
    /// Waiting will not help: a loop, a permission, a path outside the
    /// grants, a folder where a file was expected.
    #[error("{0}")]
    Denied(String),
    /// A failure that may pass (an I/O error, a spent budget, the deadline).
    #[error("{0}")]
    Transient(String),
}

impl From<FsError> for ReadError {
    fn from(e: FsError) -> Self {
        match e {
            FsError::NotFound => ReadError::NotFound,
            FsError::TooLarge(n) => ReadError::TooLarge(n),
            FsError::Denied(m) => ReadError::Denied(m),
            FsError::Transient(m) => ReadError::Transient(m),
        }
    }
}

fn kind(kind: wit::EntryKind) -> EntryKind {
    match kind {
        wit::EntryKind::File => EntryKind::File,
        wit::EntryKind::Directory => EntryKind::Directory,
        wit::EntryKind::Symlink => EntryKind::Symlink,
        wit::EntryKind::Other => EntryKind::Other,
    }
}

/// The files one `read_files` call read: their bytes back to back, as a
/// guest receives them.
pub struct Reads(ReadResult);

impl Reads {
    /// How many paths were answered.
    pub fn len(&self) -> usize {
        self.0.files.len()
    }

    /// Whether no path was answered.
    pub fn is_empty(&self) -> bool {
        self.0.files.is_empty()
    }

    /// The bytes of the `index`-th path asked for, or why it was not read.
    pub fn get(&self, index: usize) -> Result<&[u8], ReadError> {
        let slice = match self.0.files.get(index) {
            Some(Ok(slice)) => slice,
            Some(Err(e)) => return Err(e.clone().into()),
            None => return Err(ReadError::Transient("no answer for this path".to_string())),
        };
        let start = usize::try_from(slice.offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(slice.len).unwrap_or(usize::MAX));
        self.0
            .data
            .get(start..end)
            .ok_or_else(|| ReadError::Transient("a slice outside the data".to_string()))
    }
}

/// Folders granted as a local provider is granted them, read natively
/// through the `files` capability.
pub struct HostReader {
    files: FilesCtx,
    roots: Vec<String>,
    budget: Duration,
}

impl HostReader {
    /// Grants `roots` (read-only) as the local provider's instance gets them:
    /// `/skills/0`, `/skills/1`, ..., folders linked into a root mounted at
    /// the link; a missing root is granted by path. Each call may run as
    /// long as a provider's call. It reads ahead and splits batches on
    /// `workers`, as an instance on their engine does.
    pub fn for_roots(roots: &[PathBuf], workers: &Workers) -> HostReader {
        let grants = Grants::for_roots(roots);
        let mut mounts = Mounts::default();
        for mount in &grants.mounts {
            match cap_std::fs::Dir::open_ambient_dir(&mount.host, cap_std::ambient_authority()) {
                Ok(dir) => mounts.push(&mount.guest, dir),
                // Vanished since the grant: missing, as for an instance.
                Err(_) => mounts.absent(&mount.guest),
            }
        }
        for root in grants.roots.iter().filter(|r| !r.present) {
            mounts.absent(&root.guest);
        }
        HostReader {
            files: FilesCtx::new(mounts, workers.clone()),
            roots: grants.roots.into_iter().map(|r| r.guest).collect(),
            budget: Limits::default().deadline,
        }
    }

    /// Where each root is seen (`/skills/0`, ...), in the order given.
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// Starts a call, as an export call starts for a provider: its deadline
    /// is a provider call's, and what it announced for read-ahead is
    /// dropped when it ends.
    pub fn call(&mut self) -> ReaderCall<'_> {
        ReaderCall {
            deadline: crate::clock::after(self.budget),
            files: &mut self.files,
        }
    }
}

/// One call's worth of reads (see [`HostReader::call`]).
pub struct ReaderCall<'r> {
    files: &'r mut FilesCtx,
    deadline: Instant,
}

impl ReaderCall<'_> {
    /// The entries of a folder (symlinks not followed), as `list-dir`.
    pub fn list_dir(&mut self, path: &str) -> Result<Vec<(String, EntryKind)>, ReadError> {
        let listed = self.files.list_dir(path)?;
        Ok(listed.into_iter().map(|e| (e.name, kind(e.kind))).collect())
    }

    /// What each path is (symlinks followed inside the grants), as one
    /// `stat-paths` call.
    pub fn stat_kinds(&self, paths: Vec<String>) -> Vec<Result<EntryKind, ReadError>> {
        self.files
            .stat_paths(paths, self.deadline)
            .into_iter()
            .map(|r| r.map(|info| kind(info.kind)).map_err(ReadError::from))
            .collect()
    }

    /// Announces that this call will read `paths` with this `max_bytes`, as
    /// `prefetch`: they are read in the background from now on.
    pub fn prefetch(&mut self, paths: Vec<String>, max_bytes: u64) {
        self.files
            .prefetch(paths, max_bytes, self.deadline, super::MAX_BYTES_PER_CALL);
    }

    /// Reads whole regular files, each at most `max_bytes`, as one
    /// `read-files` call.
    pub fn read_files(&self, paths: Vec<String>, max_bytes: u64) -> Reads {
        Reads(
            self.files
                .read_files(paths, max_bytes, self.deadline, super::MAX_BYTES_PER_CALL),
        )
    }

    /// Reads documents' frontmatter, each at most `max_bytes`, as one
    /// `read-frontmatters` call: each file read whole, its head kept.
    pub fn read_frontmatters(&self, paths: Vec<String>, max_bytes: u64) -> Reads {
        Reads(self.files.read_frontmatters(
            paths,
            max_bytes,
            self.deadline,
            super::MAX_BYTES_PER_CALL,
        ))
    }
}

impl Drop for ReaderCall<'_> {
    fn drop(&mut self) {
        self.files.end_call();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_native_call_lists_stats_and_reads_beneath_its_grants_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("skills");
        std::fs::create_dir_all(root.join("pdf")).expect("mkdir");
        std::fs::write(root.join("pdf/SKILL.md"), "---\ndescription: d\n---\n").expect("write");
        let mut reader =
            HostReader::for_roots(&[root, dir.path().join("absent")], &Workers::new(2));
        assert_eq!(reader.roots(), ["/skills/0", "/skills/1"]);
        let mut call = reader.call();
        assert_eq!(
            call.list_dir("/skills/0"),
            Ok(vec![("pdf".to_string(), EntryKind::Directory)])
        );
        assert_eq!(call.list_dir("/skills/1"), Err(ReadError::NotFound));
        let paths = [
            "/skills/0/pdf/SKILL.md",
            "/skills/0/gone/SKILL.md",
            "/etc/passwd",
        ]
        .map(String::from);
        let kinds = call.stat_kinds(paths.to_vec());
        assert_eq!(kinds[0], Ok(EntryKind::File));
        assert_eq!(kinds[1], Err(ReadError::NotFound));
        assert!(matches!(kinds[2], Err(ReadError::Denied(_))));
        call.prefetch(paths.to_vec(), 1024);
        let reads = call.read_files(paths.to_vec(), 1024);
        assert_eq!(reads.len(), 3);
        assert_eq!(reads.get(0), Ok(&b"---\ndescription: d\n---\n"[..]));
        assert_eq!(reads.get(1), Err(ReadError::NotFound));
        assert!(matches!(reads.get(2), Err(ReadError::Denied(_))));
        assert_eq!(
            call.read_files(paths[..1].to_vec(), 4).get(0),
            Err(ReadError::TooLarge(23))
        );
    }

    #[test]
    fn what_a_call_announced_is_dropped_when_it_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut reader = HostReader::for_roots(&[dir.path().to_path_buf()], &Workers::new(2));
        let mut call = reader.call();
        call.prefetch(vec!["/skills/0/a.md".to_string()], 1024);
        drop(call);
        assert!(reader.files.prefetch.is_none());
    }
}
