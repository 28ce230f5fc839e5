//! `read-frontmatters`: skill documents read whole by the host, and only
//! their frontmatter copied into guest memory.
//!
//! The cut is made with the same splitter the provider's parser uses
//! (`skillhost-skill`), and only where the parser would see no difference:
//! a document that does not open with a frontmatter block, never closes
//! it, or whose body is not UTF-8 goes across whole, so the provider
//! reports the same problem it would have found in the whole file. No YAML
//! is parsed here: the fences are found, nothing between them is read.

use crate::sandbox::bindings::latest::files::{FileSlice, ReadResult};
use skillhost_skill::frontmatter::split_document;

/// Bytes of `doc` up to and including the line closing its frontmatter,
/// when cutting there changes nothing the parser reports; else all of it.
pub(super) fn head_len(doc: &[u8]) -> usize {
    match split_document(doc) {
        Ok(split) if split.raw.is_some() => doc.len() - split.body.len(),
        _ => doc.len(),
    }
}

/// `read` with every file cut to its head, the data packed again so only
/// the heads are left in it. Each slice keeps its stamp: the whole file's
/// size stays known.
pub(super) fn heads(read: ReadResult) -> ReadResult {
    let ReadResult { data, files } = read;
    let mut packed = Vec::with_capacity(data.len().min(files.len() * 1024));
    let files = files
        .into_iter()
        .map(|file| {
            file.map(|slice| {
                let start = usize::try_from(slice.offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(usize::try_from(slice.len).unwrap_or(usize::MAX));
                let doc = data.get(start..end).unwrap_or_default();
                let head = &doc[..head_len(doc)];
                let offset = packed.len() as u64;
                packed.extend_from_slice(head);
                FileSlice {
                    offset,
                    len: head.len() as u64,
                    stamp: slice.stamp,
                }
            })
        })
        .collect();
    ReadResult {
        data: packed,
        files,
    }
}

#[cfg(test)]
#[path = "heads_tests.rs"]
mod tests;
