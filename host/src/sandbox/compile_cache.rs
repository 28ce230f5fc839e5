//! On-disk cache of compiled components.
//!
//! Compiling a provider takes hundreds of milliseconds; loading its
//! precompiled artifact takes well under one. But a precompiled artifact is
//! native code that wasmtime's `deserialize` trusts completely, so only an
//! entry this user's host wrote itself may ever reach it:
//!
//! - the cache folder must belong to the user and be writable by no one
//!   else (otherwise components are compiled in memory, with a warning);
//! - each entry carries an HMAC-SHA-256, under a key kept in the user's
//!   state folder (not in the cache folder, so copying a cache does not
//!   copy its key), over the component's SHA-256, the engine's
//!   compatibility hash and the payload — so a planted entry, one copied
//!   from another machine, or one renamed to another component's name, is
//!   recompiled, never loaded;
//! - the entry is read into memory, checked, and deserialized from those
//!   same bytes (a file changed after the check cannot change what runs).
//!
//! Entries are named by the component's SHA-256 and the engine's
//! compatibility hash (wasmtime version and every code-generation
//! setting). A bad entry is recompiled and rewritten, never fatal.

use crate::paths::{private_dir, read_regular, state_dir};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use wasmtime::Engine;
use wasmtime::component::Component;

type HmacSha256 = Hmac<Sha256>;

const MAGIC: &[u8; 8] = b"SKHOST2\n";
const HEADER: usize = MAGIC.len() + 32;
/// What the MAC covers first, so a tag can mean nothing else.
const DOMAIN: &[u8] = b"skillhost compile cache v2\0";
/// The key's file name in the state folder.
pub const KEY_FILE: &str = "cache-key";
/// Largest entry read, in bytes.
const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;

/// What happened when a component was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOutcome {
    /// The precompiled entry was used; nothing was compiled.
    Hit,
    /// No entry existed: compiled and stored.
    Miss,
    /// An entry existed but was unusable (named reason): recompiled and replaced.
    Rebuilt(String),
    /// No usable cache (none configured, a folder others may write in, no
    /// key): compiled in memory only.
    Disabled,
}

/// A folder of precompiled components.
#[derive(Debug)]
pub struct CompileCache {
    dir: Option<PathBuf>,
    /// The key, once read (none: the cache is not used).
    key: OnceLock<Option<[u8; 32]>>,
}

impl CompileCache {
    /// A cache in `dir`, or none at all.
    pub fn new(dir: Option<PathBuf>) -> Self {
        CompileCache {
            dir,
            key: OnceLock::new(),
        }
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

    /// The key entries are authenticated with, when the cache may be used:
    /// its folder is private (or could be made so) and the key is at hand.
    fn key(&self) -> Option<[u8; 32]> {
        *self.key.get_or_init(|| {
            let dir = self.dir.as_ref()?;
            if let Err(e) = usable_folder(dir) {
                tracing::warn!(cache = %dir.display(), error = %e, "the compile cache is not used; compiling in memory");
                return None;
            }
            let Some(state) = state_dir() else {
                tracing::warn!("no state folder for the compile cache's key; compiling in memory");
                return None;
            };
            match key_in(&state) {
                Ok(key) => Some(key),
                Err(e) => {
                    tracing::warn!(state = %state.display(), error = %e, "no usable compile cache key; compiling in memory");
                    None
                }
            }
        })
    }

    /// Loads the component for `bytes`, from the cache when an entry this
    /// host wrote exists, compiling (and storing) it otherwise.
    pub fn load(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let (Some(path), Some(key)) = (self.entry_path(engine, bytes), self.key()) else {
            return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
        };
        let tag = |payload: &[u8]| mac(&key, engine, bytes, payload);
        let outcome = match read_regular(&path, MAX_ENTRY_BYTES) {
            Ok(entry) => match verified_payload(&entry, tag) {
                Ok(payload) => {
                    // SAFETY: the payload carries a MAC under this user's
                    // key over this component's digest, this engine's
                    // compatibility hash and the payload itself: it is
                    // exactly what `Component::serialize` produced here.
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
            tracing::warn!(entry = %path.display(), %reason, "compile cache entry refused; recompiling");
        }
        let component = Component::new(engine, bytes)?;
        match component.serialize() {
            Ok(serialized) => {
                if let Err(e) = store(&path, &tag(&serialized), &serialized) {
                    tracing::warn!(entry = %path.display(), error = %e, "could not write the compile cache");
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not serialize a compiled component"),
        }
        Ok((component, outcome))
    }
}

/// The cache folder may be used: made private when missing; refused when it
/// exists but others may write in it. A path that cannot be a folder (a
/// file in the way) is left to fail when an entry is written.
fn usable_folder(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() || meta.file_type().is_symlink() => private_dir(dir),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => private_dir(dir).or(Ok(())),
        Err(e) => Err(e),
    }
}

/// Feeds a `Hash` value (the engine's compatibility hash) into the MAC.
struct MacHasher<'a>(&'a mut HmacSha256);

impl Hasher for MacHasher<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
}

fn mac(key: &[u8; 32], engine: &Engine, component: &[u8], payload: &[u8]) -> [u8; 32] {
    let mut mac = <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes a key of any size");
    mac.update(DOMAIN);
    mac.update(skillhost_skill::digest::sha256_hex(component).as_bytes());
    engine
        .precompile_compatibility_hash()
        .hash(&mut MacHasher(&mut mac));
    mac.update(&(payload.len() as u64).to_le_bytes());
    mac.update(payload);
    mac.finalize().into_bytes().into()
}

fn verified_payload(entry: &[u8], tag: impl Fn(&[u8]) -> [u8; 32]) -> Result<&[u8], &'static str> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return Err("bad header (not an entry this version of skillhost wrote)");
    }
    let (given, payload) = entry[MAGIC.len()..].split_at(32);
    // Constant-time comparison through the MAC type is not needed here:
    // the key never leaves this process, and a mismatch only recompiles.
    if tag(payload).as_slice() != given {
        return Err("checksum mismatch (not authenticated by this user's key)");
    }
    Ok(payload)
}

/// Writes an entry atomically: a reader sees the old file or the new one,
/// never half of one.
fn store(path: &Path, tag: &[u8; 32], payload: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(tag)?;
    tmp.write_all(payload)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The user's cache key in `state`, made on first use: 32 random bytes in
/// a file only the user may read, in a folder only the user may change.
fn key_in(state: &Path) -> std::io::Result<[u8; 32]> {
    private_dir(state)?;
    let path = state.join(KEY_FILE);
    match read_key(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        read => return read,
    }
    let mut key = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    // Created 0600; never replaces a key another process made meanwhile.
    let mut tmp = tempfile::NamedTempFile::new_in(state)?;
    tmp.write_all(&key)?;
    tmp.as_file().sync_all()?;
    match tmp.persist_noclobber(&path) {
        Ok(_) => Ok(key),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => read_key(&path),
        Err(e) => Err(e.error),
    }
}

fn read_key(path: &Path) -> std::io::Result<[u8; 32]> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 || meta.len() != 32 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a private 32-byte key file", path.display()),
        ));
    }
    let bytes = read_regular(path, 32)?;
    bytes.try_into().map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the key changed while read",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_needs_the_right_tag() {
        let tag = |p: &[u8]| {
            let mut t = [0u8; 32];
            t[0] = p.len() as u8;
            t
        };
        let mut entry = MAGIC.to_vec();
        entry.extend_from_slice(&tag(b"payload"));
        entry.extend_from_slice(b"payload");
        assert_eq!(verified_payload(&entry, tag), Ok(&b"payload"[..]));
        let last = entry.len() - 1;
        entry.truncate(last);
        assert!(
            verified_payload(&entry, tag)
                .unwrap_err()
                .contains("checksum")
        );
        assert!(
            verified_payload(&entry[..10], tag)
                .unwrap_err()
                .contains("bad header")
        );
    }

    #[test]
    fn the_key_is_made_once_and_must_stay_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let key = key_in(&state).unwrap();
        assert_eq!(key_in(&state).unwrap(), key, "the same key every time");
        let path = state.join(KEY_FILE);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(key_in(&state).is_err(), "a key others may read is not used");
    }
}
