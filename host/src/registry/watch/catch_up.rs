//! What changed in a target between the moment its provider began to see
//! it and the moment its watches were in place.
//!
//! A provider reads its folders before it asks for them to be watched,
//! and the watches are installed only when that call has returned. No
//! event reports a change made in between, so once a new target's
//! watches are in place the watcher looks at every watched folder and the
//! files directly in it, and reports each whose status changed at or
//! after the target's `since` (a file's change time moves on every write,
//! rename or permission change, and cannot be set back by hand; a
//! folder's moves when an entry is added, removed or renamed). Anything
//! changed later produces an event of its own. A change made in the same
//! clock tick just before `since` is reported too, which costs the
//! provider one more look and nothing else.

use super::watched::Changes;
use crate::provider::ChangeKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Most directory entries one catch-up looks at; past it (or past
/// [`MAX_CATCH_UP_TIME`]) the provider is asked to rescan the target.
pub const MAX_CATCH_UP_ENTRIES: usize = 20_000;
/// Longest one catch-up may take.
pub const MAX_CATCH_UP_TIME: Duration = Duration::from_secs(2);

/// The changes to report for the target whose watched `folders` (the
/// target first) were in place before this was called: each folder or
/// file changed at or after `since`, or one rescan of the target when
/// the look was cut short.
pub(super) fn changed_since(folders: &[PathBuf], since: SystemTime) -> Changes {
    let started = Instant::now();
    let mut looked = 0;
    let mut changed = Vec::new();
    for folder in folders {
        if changed_at_or_after(folder, since, true) {
            changed.push((folder.clone(), ChangeKind::Modified));
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        for entry in entries.flatten() {
            looked += 1;
            if looked > MAX_CATCH_UP_ENTRIES || started.elapsed() > MAX_CATCH_UP_TIME {
                let target = folders.first().cloned().unwrap_or_default();
                return vec![(target, ChangeKind::Rescan)];
            }
            // Subfolders within the depth are watched folders themselves;
            // deeper ones are nobody's concern.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            if changed_at_or_after(&path, since, false) {
                changed.push((path, ChangeKind::Modified));
            }
        }
    }
    changed
}

/// Whether `path` (through a symlink, and the link itself, unless it is a
/// watched folder, which is followed as watched) changed at or after
/// `since`. A path that cannot be looked at counts as changed: the
/// provider finds out why.
fn changed_at_or_after(path: &Path, since: SystemTime, folder: bool) -> bool {
    let link = if folder {
        None
    } else {
        std::fs::symlink_metadata(path).ok()
    };
    let target = std::fs::metadata(path).ok();
    if link.is_none() && target.is_none() {
        return true;
    }
    [link, target]
        .into_iter()
        .flatten()
        .any(|meta| status_time(&meta) >= since)
}

/// When `meta`'s status last changed; before 1970 counts as long ago.
fn status_time(meta: &std::fs::Metadata) -> SystemTime {
    match (
        u64::try_from(meta.ctime()),
        u32::try_from(meta.ctime_nsec()),
    ) {
        (Ok(secs), Ok(nanos)) if nanos < 1_000_000_000 => {
            SystemTime::UNIX_EPOCH + Duration::new(secs, nanos)
        }
        _ => SystemTime::UNIX_EPOCH,
    }
}

#[cfg(test)]
#[path = "catch_up_tests.rs"]
mod tests;
