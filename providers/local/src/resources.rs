//! A skill's files: listing with sizes and SHA-256 digests, and reading one.

use crate::fs::Failure;
use crate::{SkillRef, read_error, read_one};
use skillhost_guest_sdk::files::{self, EntryKind};
use skillhost_guest_sdk::skill::{digest, segments};
use skillhost_guest_sdk::{ProviderError, Resource};

/// Deepest folder level walked inside a bundle.
const MAX_DEPTH: usize = 16;
/// Most files listed for one skill.
const MAX_FILES: usize = 10_000;
/// Largest single resource served, in bytes.
pub const MAX_RESOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// Lists every regular file of the skill (the flat file alone for a flat
/// skill), sorted by path. Symlinked folders are not walked, so a link loop
/// cannot trap the walk; symlinked files inside the grant are listed. A
/// file whose name could not be served back (a control character, a
/// backslash) is left out.
pub fn list(skill: &SkillRef) -> Result<Vec<Resource>, ProviderError> {
    if skill.flat {
        let file_name = skill.doc.rsplit('/').next().unwrap_or_default();
        let bytes =
            read_one(&skill.doc, MAX_RESOURCE_BYTES).map_err(|e| read_error(&skill.doc, e))?;
        return Ok(vec![describe(file_name, &bytes)]);
    }
    let mut out = Vec::new();
    walk(&skill.base, "", 0, &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Lists `base/prefix`, reads its files in one batch and descends into folders.
fn walk(
    base: &str,
    prefix: &str,
    depth: usize,
    out: &mut Vec<Resource>,
) -> Result<(), ProviderError> {
    let folder = if prefix.is_empty() {
        base.to_string()
    } else {
        format!("{base}/{}", prefix.trim_end_matches('/'))
    };
    let entries = files::list_dir(&folder).map_err(|e| read_error(&folder, e.into()))?;
    let mut links = Vec::new();
    let mut regular = Vec::new();
    let mut folders = Vec::new();
    for entry in entries {
        let rel = format!("{prefix}{}", entry.name);
        if !segments::is_relative(&rel) {
            continue;
        }
        match entry.kind {
            EntryKind::File => regular.push(rel),
            EntryKind::Symlink => links.push(rel),
            EntryKind::Directory => folders.push(rel),
            EntryKind::Other => {}
        }
    }
    if !links.is_empty() {
        let paths: Vec<String> = links.iter().map(|rel| format!("{base}/{rel}")).collect();
        for (rel, info) in links.into_iter().zip(files::stat_paths(&paths)) {
            // A linked folder or a dangling link is not part of the skill.
            if info.is_ok_and(|i| i.kind == EntryKind::File) {
                regular.push(rel);
            }
        }
    }
    if out.len() + regular.len() > MAX_FILES {
        return Err(ProviderError::Invalid(format!(
            "{base}: more than {MAX_FILES} files"
        )));
    }
    let paths: Vec<String> = regular.iter().map(|rel| format!("{base}/{rel}")).collect();
    let result = files::read_files(&paths, MAX_RESOURCE_BYTES);
    for (index, (rel, path)) in regular.iter().zip(&paths).enumerate() {
        let (bytes, _) = files::file(&result, index).map_err(|e| read_error(path, e.into()))?;
        out.push(describe(rel, bytes));
    }
    if depth < MAX_DEPTH {
        for rel in folders {
            walk(base, &format!("{rel}/"), depth + 1, out)?;
        }
    }
    Ok(())
}

fn describe(path: &str, bytes: &[u8]) -> Resource {
    Resource {
        path: path.to_string(),
        size: bytes.len() as u64,
        digest: digest::sha256(bytes),
    }
}

/// Reads one file of the skill; `path` is relative to its base folder and
/// may not climb out of it.
pub fn read(skill: &SkillRef, path: &str) -> Result<Vec<u8>, ProviderError> {
    let full = full_path(skill, path)?;
    read_one(&full, MAX_RESOURCE_BYTES).map_err(|e: Failure| read_error(&full, e))
}

/// Reads at most `len` bytes of one file of the skill from `offset`, by the
/// same rules as [`read`]: only that part crosses into the sandbox.
pub fn read_range(
    skill: &SkillRef,
    path: &str,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, ProviderError> {
    let full = full_path(skill, path)?;
    let len = len.min(MAX_RESOURCE_BYTES);
    match files::read_range(&full, offset, len) {
        Ok((bytes, stamp)) if stamp.size <= MAX_RESOURCE_BYTES => Ok(bytes),
        Ok((_, stamp)) => Err(read_error(&full, Failure::TooLarge(stamp.size))),
        Err(e) => Err(read_error(&full, e.into())),
    }
}

/// The guest path of file `path` of the skill, checked.
fn full_path(skill: &SkillRef, path: &str) -> Result<String, ProviderError> {
    check_relative(path)?;
    if skill.flat {
        let file_name = skill.doc.rsplit('/').next().unwrap_or_default();
        if path != file_name {
            return Err(ProviderError::NotFound(format!(
                "{path}: a flat skill has no other files"
            )));
        }
    }
    Ok(format!("{}/{path}", skill.base))
}

fn check_relative(path: &str) -> Result<(), ProviderError> {
    segments::check_relative(path).map_err(|e| {
        ProviderError::Invalid(format!(
            "{path:?} is not a relative path inside the skill: {e}"
        ))
    })
}
