//! Listing one folder as `list-dir` answers, and the listing the grant
//! took of each root, which answers the guest's first `list-dir` of it.
//!
//! A cold start lists each root once, not twice: the grant must list it to
//! find the skill folders linked into it (`grants.rs`), and the provider's
//! first scan lists it again. The grant's listing is the folder as it was a
//! moment before the instance started; it answers that root's first
//! `list-dir`, and only in the instance's first call after `init`. That
//! call runs before any watch on the root exists (watches are installed
//! when the call that asked for them ends), so a listing made at the grant
//! misses nothing a listing made inside the call would have caught. Every
//! other listing reads the folder again.
//!
//! The moment the grant began is kept with it ([`Listed::since`]): a change
//! made after it but before the watches are in place produces no event,
//! so the watcher catches up on what changed since then once they are
//! (`registry/watch/catch_up.rs`).

use super::read::{error, kind_of};
use crate::clock::file_clock_now;
use crate::sandbox::bindings::latest::files::{DirEntry, EntryKind, FsError};
use cap_std::fs::Dir;
use std::time::SystemTime;

/// Most entries one `list-dir` call returns.
pub const MAX_ENTRIES_PER_LISTING: usize = 100_000;

/// The entries of `dir` (or of `rel` beneath it, when not empty); `path`
/// names it in errors. Names that are not UTF-8 are left out: they cannot
/// name a skill or cross the WIT boundary.
pub(crate) fn list(dir: &Dir, rel: &str, path: &str) -> Result<Vec<DirEntry>, FsError> {
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
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let kind = entry.file_type().map_or(EntryKind::Other, kind_of);
        out.push(DirEntry { name, kind });
    }
    // In byte order of the names: the order is then the same on every
    // filesystem, and a provider keeping its entries sorted (the local
    // provider) pays one comparison per name instead of a search.
    out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Each present root's listing as the grant took it, by guest path, until
/// it answers that root's first `list-dir` or the call it was kept for ends.
#[derive(Default)]
pub(crate) struct Listed {
    roots: Vec<(String, Vec<DirEntry>)>,
    since: Option<SystemTime>,
}

impl Listed {
    /// Listings about to be taken: what the instance sees of its roots is
    /// what they held at this moment or later.
    pub(crate) fn starting_now() -> Listed {
        Listed {
            roots: Vec::new(),
            since: Some(file_clock_now()),
        }
    }

    /// The moment the instance's view of its roots may go back to (by the
    /// file clock): the start of the grant, or, for listings taken without
    /// one, the earliest time there is.
    pub(crate) fn since(&self) -> SystemTime {
        self.since.unwrap_or(SystemTime::UNIX_EPOCH)
    }

    /// Keeps `entries` as the listing of the root seen at `guest`.
    pub(crate) fn keep(&mut self, guest: &str, entries: Vec<DirEntry>) {
        self.roots.push((guest.to_string(), entries));
    }

    /// The listing of the root at `guest`, given up: it answers once.
    pub(crate) fn take(&mut self, guest: &str) -> Option<Vec<DirEntry>> {
        let at = self.roots.iter().position(|(root, _)| root == guest)?;
        Some(self.roots.swap_remove(at).1)
    }
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
