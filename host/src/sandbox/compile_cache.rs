//! On-disk cache of compiled components.
//!
//! Compiling a provider takes hundreds of milliseconds; loading its
//! precompiled artifact takes well under one. Entries are keyed by the SHA-256
//! of the component's bytes and by the engine's compatibility hash (wasmtime
//! version and every setting that affects code generation), and each entry
//! carries a SHA-256 of its own payload: wasmtime's `deserialize` trusts its
//! input completely, so a truncated or bit-flipped file must never reach it.
//! A bad entry is recompiled and rewritten, never fatal.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

const MAGIC: &[u8; 8] = b"SKHOST1\n";
const HEADER: usize = MAGIC.len() + 32;

/// What happened when a component was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOutcome {
    /// The precompiled entry was used; nothing was compiled.
    Hit,
    /// No entry existed: compiled and stored.
    Miss,
    /// An entry existed but was unusable (named reason): recompiled and replaced.
    Rebuilt(String),
    /// No cache folder is configured: compiled in memory only.
    Disabled,
}

/// A folder of precompiled components.
#[derive(Debug, Clone)]
pub struct CompileCache {
    dir: Option<PathBuf>,
}

impl CompileCache {
    /// A cache in `dir`, or none at all.
    pub fn new(dir: Option<PathBuf>) -> Self {
        CompileCache { dir }
    }

    /// The default folder: `$SKILLHOST_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/skillhost`, else `~/.cache/skillhost`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("SKILLHOST_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir).join("skillhost"));
        }
        std::env::home_dir().map(|home| home.join(".cache").join("skillhost"))
    }

    /// The entry file for `bytes` on `engine`.
    pub fn entry_path(&self, engine: &Engine, bytes: &[u8]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let mut hasher = std::hash::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let component = skillhost_skill::digest::sha256_hex(bytes);
        Some(dir.join(format!("{component}-{:016x}.cwasm", hasher.finish())))
    }

    /// Loads the component for `bytes`, from the cache when a sound entry
    /// exists, compiling (and storing) it otherwise.
    pub fn load(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let Some(path) = self.entry_path(engine, bytes) else {
            return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
        };
        let outcome = match std::fs::read(&path) {
            Ok(entry) => match verified_payload(&entry) {
                Ok(payload) => {
                    // SAFETY: the payload was written by `store` below from
                    // `Component::serialize` on an engine with the same
                    // compatibility hash (it is in the file name), and its
                    // SHA-256 matches, so these are exactly the bytes wasmtime
                    // produced.
                    match unsafe { Component::deserialize(engine, payload) } {
                        Ok(component) => return Ok((component, CacheOutcome::Hit)),
                        Err(e) => CacheOutcome::Rebuilt(format!("wasmtime refused it: {e}")),
                    }
                }
                Err(reason) => CacheOutcome::Rebuilt(reason.to_string()),
            },
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                CacheOutcome::Miss
            }
            Err(e) => CacheOutcome::Rebuilt(format!("unreadable: {e}")),
        };
        if let CacheOutcome::Rebuilt(reason) = &outcome {
            tracing::warn!(entry = %path.display(), %reason, "compile cache entry is corrupt; recompiling");
        }
        let component = Component::new(engine, bytes)?;
        match component.serialize() {
            Ok(serialized) => {
                if let Err(e) = store(&path, &serialized) {
                    tracing::warn!(entry = %path.display(), error = %e, "could not write the compile cache");
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not serialize a compiled component"),
        }
        Ok((component, outcome))
    }
}

fn verified_payload(entry: &[u8]) -> Result<&[u8], &'static str> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return Err("bad header");
    }
    let (checksum, payload) = entry[MAGIC.len()..].split_at(32);
    if Sha256::digest(payload).as_slice() != checksum {
        return Err("checksum mismatch");
    }
    Ok(payload)
}

/// Writes an entry atomically: a reader sees the old file or the new one,
/// never half of one.
fn store(path: &Path, payload: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(&Sha256::digest(payload))?;
    tmp.write_all(payload)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_with_wrong_checksum_is_rejected() {
        let mut entry = MAGIC.to_vec();
        entry.extend_from_slice(&Sha256::digest(b"payload"));
        entry.extend_from_slice(b"payload");
        assert_eq!(verified_payload(&entry), Ok(&b"payload"[..]));
        let last = entry.len() - 1;
        entry[last] ^= 1;
        assert_eq!(verified_payload(&entry), Err("checksum mismatch"));
        assert_eq!(verified_payload(&entry[..10]), Err("bad header"));
    }
}
