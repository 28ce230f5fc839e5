//! `read-frontmatters`: skill documents read whole by the host, and only
//! their frontmatter copied into guest memory.
//!
//! The cut is made with the same splitter the provider's parser uses
//! (`skillhost-skill`), and only where the parser would see no difference:
//! a document that does not open with a frontmatter block, never closes
//! it, or whose body is not UTF-8 goes across whole, so the provider
//! reports the same problem it would have found in the whole file. No YAML
//! is parsed here: the fences are found, nothing between them is read.
//!
//! Each file is cut as soon as it is read, so a batch of documents costs
//! its heads in memory, not its whole files.

use crate::sandbox::bindings::latest::files::FileSlice;
use skillhost_skill::frontmatter::split_document;

/// Bytes of `doc` up to and including the line closing its frontmatter,
/// when cutting there changes nothing the parser reports; else all of it.
pub(super) fn head_len(doc: &[u8]) -> usize {
    match split_document(doc) {
        Ok(split) if split.raw.is_some() => doc.len() - split.body.len(),
        _ => doc.len(),
    }
}

/// What of each file read crosses into the guest: `read-files` gives it
/// whole, `read-frontmatters` its head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// The whole file.
    Whole,
    /// The bytes up to and including the line closing its frontmatter.
    Head,
}

impl Keep {
    /// What is kept of a whole file; `head`, where its head ends when
    /// already found (a read-ahead may have).
    pub(super) fn of(self, file: &[u8], head: Option<usize>) -> &[u8] {
        match self {
            Keep::Whole => file,
            Keep::Head => &file[..head.unwrap_or_else(|| head_len(file)).min(file.len())],
        }
    }

    /// Cuts the file that `slice` says was just appended to `data` down to
    /// what is kept. Only the last file can be cut this way, so a batch is
    /// cut as it is read and never holds more than one whole file.
    pub(super) fn cut(self, data: &mut Vec<u8>, slice: FileSlice) -> FileSlice {
        if self == Keep::Whole {
            return slice;
        }
        let start = usize::try_from(slice.offset)
            .unwrap_or(usize::MAX)
            .min(data.len());
        let kept = self.of(&data[start..], None).len();
        data.truncate(start + kept);
        FileSlice {
            len: kept as u64,
            ..slice
        }
    }
}

#[cfg(test)]
#[path = "heads_tests.rs"]
mod tests;
