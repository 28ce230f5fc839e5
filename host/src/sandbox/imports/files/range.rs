//! `read-range`: part of one file, so a provider can serve a file larger
//! than it would want to hold (or than one call may carry) in pieces.

use super::MAX_BYTES_PER_CALL;
use super::mounts::Mounts;
use super::read::{error, open_regular, stamp_of};
use crate::sandbox::bindings::latest::files::{FsError, Stamp};
use std::io::{ErrorKind, Read, Seek, SeekFrom};

/// At most `len` bytes of the file at guest path `path` from `offset`
/// (fewer at its end, none past it), and its stamp. `len` is capped by the
/// per-call byte budget, so one call never carries more than any other.
pub(super) fn read_range(
    mounts: &Mounts,
    path: &str,
    offset: u64,
    len: u64,
) -> Result<(Vec<u8>, Stamp), FsError> {
    let (dir, rel) = mounts.resolve(path)?;
    if rel.is_empty() {
        return Err(FsError::Denied("is a directory".to_string()));
    }
    let (mut file, meta) = open_regular(dir, rel)?;
    let stamp = stamp_of(&meta);
    let available = meta.len().saturating_sub(offset);
    let want = len.min(MAX_BYTES_PER_CALL).min(available);
    let mut data = vec![0; usize::try_from(want).unwrap_or(0)];
    if data.is_empty() {
        return Ok((data, stamp));
    }
    file.seek(SeekFrom::Start(offset)).map_err(error)?;
    let mut filled = 0;
    while filled < data.len() {
        match file.read(&mut data[filled..]) {
            // The file shrank since it was stat'ed: what is there is the answer.
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(error(e)),
        }
    }
    data.truncate(filled);
    Ok((data, stamp))
}
