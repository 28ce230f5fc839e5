//! Thin, allocation-conscious wrappers over `wasi:filesystem`.
//!
//! The provider talks to WASI directly rather than through `std::fs`: one
//! `stat-at`, `open-at` or `read` per step instead of the several calls
//! wasi-libc makes, which is what keeps a sandboxed scan close to native speed.

use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

/// The directories the host preopened for this instance, by guest path.
pub struct Preopens {
    dirs: Vec<(String, Descriptor)>,
}

impl Preopens {
    /// Reads the preopen table once.
    pub fn load() -> Self {
        let dirs = get_directories()
            .into_iter()
            .map(|(descriptor, path)| (path.trim_end_matches('/').to_string(), descriptor))
            .collect();
        Preopens { dirs }
    }

    /// The index of the preopen mounted exactly at `guest_path`, if any.
    pub fn index_of(&self, guest_path: &str) -> Option<usize> {
        let guest_path = guest_path.trim_end_matches('/');
        self.dirs.iter().position(|(path, _)| path == guest_path)
    }

    /// The preopen at `index` (from [`Preopens::index_of`]).
    pub fn get(&self, index: usize) -> &Descriptor {
        &self.dirs[index].1
    }

    /// The deepest preopen containing `guest_path`, with the path relative to it.
    pub fn resolve<'a>(&self, guest_path: &'a str) -> Option<(&Descriptor, &'a str)> {
        self.dirs
            .iter()
            .filter_map(|(mount, d)| {
                let rest = guest_path.strip_prefix(mount.as_str())?;
                if rest.is_empty() {
                    Some((mount.len(), d, "."))
                } else {
                    rest.strip_prefix('/').map(|rel| (mount.len(), d, rel))
                }
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, d, rel)| (d, rel))
    }
}

/// An error from the filesystem, classified by what the provider should do.
#[derive(Debug, Clone, PartialEq)]
pub enum FsError {
    /// The path does not exist (any more).
    Missing,
    /// The file will not become readable by waiting: a loop, a permission, a
    /// wrong type, an escape from the sandbox.
    Permanent(String),
    /// A failure that may pass (I/O error, busy, out of memory): the
    /// observation is incomplete and the last complete view is kept.
    Transient(String),
    /// The file is larger than the caller's limit.
    TooLarge(u64),
}

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FsError::Missing => f.write_str("does not exist"),
            FsError::Permanent(m) | FsError::Transient(m) => f.write_str(m),
            FsError::TooLarge(n) => write!(f, "file is larger than the limit ({n} bytes)"),
        }
    }
}

impl From<ErrorCode> for FsError {
    fn from(code: ErrorCode) -> Self {
        match code {
            ErrorCode::NoEntry => FsError::Missing,
            ErrorCode::Loop => FsError::Permanent("symlink loop".to_string()),
            ErrorCode::Access | ErrorCode::NotPermitted => FsError::Permanent(
                "permission denied (outside the granted root, or not readable)".to_string(),
            ),
            ErrorCode::NotDirectory => FsError::Permanent("not a directory".to_string()),
            ErrorCode::IsDirectory => FsError::Permanent("is a directory".to_string()),
            ErrorCode::NameTooLong => FsError::Permanent("name too long".to_string()),
            ErrorCode::IllegalByteSequence => {
                FsError::Permanent("file name is not valid UTF-8".to_string())
            }
            other => FsError::Transient(format!("{other:?}").to_lowercase()),
        }
    }
}

/// Size and modification time: what decides whether a cached parse is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time as (seconds, nanoseconds), when the platform has one.
    pub mtime: Option<(u64, u32)>,
}

impl Stamp {
    fn of(stat: &DescriptorStat) -> Self {
        Stamp {
            size: stat.size,
            mtime: stat
                .data_modification_timestamp
                .map(|t| (t.seconds, t.nanoseconds)),
        }
    }
}

/// What `stat` found at a path (following symlinks).
pub struct Found {
    /// The kind of object.
    pub kind: DescriptorType,
    /// Its size and mtime.
    pub stamp: Stamp,
}

/// Stats `path` relative to `dir`, following symlinks inside the sandbox.
pub fn stat_at(dir: &Descriptor, path: &str) -> Result<Found, FsError> {
    let stat = dir.stat_at(PathFlags::SYMLINK_FOLLOW, path)?;
    Ok(Found {
        kind: stat.type_,
        stamp: Stamp::of(&stat),
    })
}

/// Reads a whole file (at most `limit` bytes).
pub fn read_at(dir: &Descriptor, path: &str, limit: u64) -> Result<Vec<u8>, FsError> {
    let file = open_file(dir, path)?;
    read_all(&file, 0, limit)
}

/// Reads a whole file and the stamp it had when opened: `open-at`, one
/// `stat` and, for a file of the stat'ed size, one `read`.
pub fn read_file(dir: &Descriptor, path: &str, limit: u64) -> Result<(Vec<u8>, Stamp), FsError> {
    let file = open_file(dir, path)?;
    let stat = file.stat()?;
    if stat.type_ != DescriptorType::RegularFile {
        return Err(FsError::Permanent("is not a regular file".to_string()));
    }
    if stat.size > limit {
        return Err(FsError::TooLarge(stat.size));
    }
    Ok((read_all(&file, stat.size, limit)?, Stamp::of(&stat)))
}

fn open_file(dir: &Descriptor, path: &str) -> Result<Descriptor, FsError> {
    Ok(dir.open_at(
        PathFlags::SYMLINK_FOLLOW,
        path,
        OpenFlags::empty(),
        DescriptorFlags::READ,
    )?)
}

/// Opens a directory relative to `dir`.
pub fn open_dir_at(dir: &Descriptor, path: &str) -> Result<Descriptor, FsError> {
    Ok(dir.open_at(
        PathFlags::SYMLINK_FOLLOW,
        path,
        OpenFlags::DIRECTORY,
        DescriptorFlags::READ,
    )?)
}

fn read_all(file: &Descriptor, expected: u64, limit: u64) -> Result<Vec<u8>, FsError> {
    let mut buf: Vec<u8> = Vec::new();
    // Asking for one byte more than expected tells a complete read (short)
    // from a file that grew since it was stat'ed (full), without an extra call.
    let mut want = expected.min(limit).saturating_add(1).max(4096);
    loop {
        let (chunk, end) = file.read(want, buf.len() as u64)?;
        let short = (chunk.len() as u64) < want;
        if buf.is_empty() {
            buf = chunk;
        } else {
            buf.extend_from_slice(&chunk);
        }
        if buf.len() as u64 > limit {
            return Err(FsError::TooLarge(buf.len() as u64));
        }
        if end || short {
            return Ok(buf);
        }
        want = want.saturating_mul(2).min(limit + 1 - buf.len() as u64).max(1);
    }
}

/// One entry of a directory listing.
pub struct Entry {
    /// The entry's file name.
    pub name: String,
    /// Its type, without following symlinks.
    pub kind: DescriptorType,
}

/// Lists a directory, in the order the filesystem returns.
pub fn list_dir(dir: &Descriptor) -> Result<Vec<Entry>, FsError> {
    let stream = dir.read_directory()?;
    let mut entries = Vec::new();
    while let Some(entry) = stream.read_directory_entry()? {
        entries.push(Entry {
            name: entry.name,
            kind: entry.type_,
        });
    }
    Ok(entries)
}
