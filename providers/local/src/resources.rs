//! A skill's files: listing with sizes and SHA-256 digests, and reading one.

use crate::fs::{self, FsError, Preopens};
use crate::read_error;
use crate::SkillRef;
use sha2::{Digest, Sha256};
use skillhost_guest_sdk::{ProviderError, Resource};
use wasip2::filesystem::types::{Descriptor, DescriptorType};

/// Deepest folder level walked inside a bundle.
const MAX_DEPTH: usize = 16;
/// Most files listed for one skill.
const MAX_FILES: usize = 10_000;
/// Largest single resource served, in bytes.
pub const MAX_RESOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// Lists every regular file of the skill (the flat file alone for a flat
/// skill), sorted by path. Symlinked folders are not walked, so a link loop
/// cannot trap the walk.
pub fn list(preopens: &Preopens, skill: &SkillRef) -> Result<Vec<Resource>, ProviderError> {
    if skill.flat {
        let file_name = skill.doc.rsplit('/').next().unwrap_or_default();
        return Ok(vec![describe(preopens.get(skill.dir), &skill.rel, file_name, &skill.base)?]);
    }
    let (dir, rel) = resolve(preopens, &skill.base)?;
    let base = if rel == "." {
        None
    } else {
        Some(fs::open_dir_at(dir, rel).map_err(|e| read_error(&skill.base, e))?)
    };
    let base = base.as_ref().unwrap_or(dir);
    let mut out = Vec::new();
    walk(base, "", &skill.base, 0, &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk(
    dir: &Descriptor,
    prefix: &str,
    guest_base: &str,
    depth: usize,
    out: &mut Vec<Resource>,
) -> Result<(), ProviderError> {
    let shown = format!("{guest_base}/{prefix}");
    let entries = fs::list_dir(dir).map_err(|e| read_error(&shown, e))?;
    for entry in entries {
        let rel = format!("{prefix}{}", entry.name);
        let kind = match entry.kind {
            DescriptorType::SymbolicLink => match fs::stat_at(dir, &entry.name) {
                Ok(found) if found.kind == DescriptorType::RegularFile => found.kind,
                // A linked folder or a dangling link is not part of the skill.
                _ => continue,
            },
            kind => kind,
        };
        match kind {
            DescriptorType::RegularFile => {
                if out.len() >= MAX_FILES {
                    return Err(ProviderError::Invalid(format!(
                        "{guest_base}: more than {MAX_FILES} files"
                    )));
                }
                out.push(describe(dir, &entry.name, &rel, guest_base)?);
            }
            DescriptorType::Directory if depth < MAX_DEPTH => {
                let sub = fs::open_dir_at(dir, &entry.name)
                    .map_err(|e| read_error(&format!("{guest_base}/{rel}"), e))?;
                walk(&sub, &format!("{rel}/"), guest_base, depth + 1, out)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn describe(dir: &Descriptor, rel: &str, shown: &str, guest_base: &str) -> Result<Resource, ProviderError> {
    let bytes = fs::read_at(dir, rel, MAX_RESOURCE_BYTES)
        .map_err(|e| read_error(&format!("{guest_base}/{shown}"), e))?;
    Ok(Resource {
        path: shown.to_string(),
        size: bytes.len() as u64,
        digest: digest(&bytes),
    })
}

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    out
}

/// Reads one file of the skill; `path` is relative to its base folder and
/// may not climb out of it.
pub fn read(preopens: &Preopens, skill: &SkillRef, path: &str) -> Result<Vec<u8>, ProviderError> {
    check_relative(path)?;
    if skill.flat {
        let file_name = skill.doc.rsplit('/').next().unwrap_or_default();
        if path != file_name {
            return Err(ProviderError::NotFound(format!(
                "{path}: a flat skill has no other files"
            )));
        }
    }
    let full = format!("{}/{path}", skill.base);
    let (dir, rel) = resolve(preopens, &full)?;
    fs::read_at(dir, rel, MAX_RESOURCE_BYTES).map_err(|e| read_error(&full, e))
}

fn check_relative(path: &str) -> Result<(), ProviderError> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path.contains('\0')
        || path
            .split('/')
            .any(|segment| segment.is_empty() || segment == "." || segment == "..");
    if bad {
        return Err(ProviderError::Invalid(format!(
            "{path:?} is not a relative path inside the skill"
        )));
    }
    Ok(())
}

fn resolve<'p, 'a>(preopens: &'p Preopens, guest_path: &'a str) -> Result<(&'p Descriptor, &'a str), ProviderError> {
    preopens
        .resolve(guest_path)
        .ok_or_else(|| read_error(guest_path, FsError::Missing))
}
