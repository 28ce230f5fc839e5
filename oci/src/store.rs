//! Components kept by content: `<root>/sha256/<hex>.wasm`. A pinned
//! provider runs from here with no network, so a registry that is down or
//! a tag that moved never changes what runs. A file is written under a
//! temporary name and renamed into place (a crash leaves no half file
//! under a digest), and read back only when its bytes still match.

use crate::digest::Digest;
use crate::error::Error;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The content-addressed store of components.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// The store in `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// Where the component with `digest` is kept.
    pub fn path(&self, digest: &Digest) -> PathBuf {
        self.root
            .join("sha256")
            .join(format!("{}.wasm", digest.hex()))
    }

    /// Keeps `bytes`; returns their digest. A file already there with the
    /// right bytes is left alone; one that no longer matches is replaced.
    pub fn put(&self, bytes: &[u8]) -> Result<Digest, Error> {
        let digest = Digest::of(bytes);
        let path = self.path(&digest);
        if self.get(&digest).is_ok() {
            return Ok(digest);
        }
        let folder = path.parent().unwrap_or(&self.root);
        let io = |source| Error::Store {
            path: folder.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(folder).map_err(io)?;
        let mut file = tempfile::NamedTempFile::new_in(folder).map_err(io)?;
        file.write_all(bytes).map_err(io)?;
        file.as_file().sync_all().map_err(io)?;
        file.persist(&path).map_err(|e| io(e.error))?;
        Ok(digest)
    }

    /// The component with `digest`, checked against it.
    pub fn get(&self, digest: &Digest) -> Result<Vec<u8>, Error> {
        let path = self.path(digest);
        let bytes = std::fs::read(&path).map_err(|source| Error::Store {
            path: path.clone(),
            source,
        })?;
        if Digest::of(&bytes) != *digest {
            return Err(Error::Corrupt {
                path,
                digest: digest.to_string(),
            });
        }
        Ok(bytes)
    }

    /// The folder the store lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_component_is_kept_by_its_digest_and_a_damaged_copy_is_refused_then_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("components"));
        let digest = store.put(b"\0asm first").unwrap();
        assert_eq!(store.get(&digest).unwrap(), b"\0asm first");
        assert_eq!(store.put(b"\0asm first").unwrap(), digest, "kept once");

        std::fs::write(store.path(&digest), b"tampered").unwrap();
        let e = store.get(&digest).unwrap_err().to_string();
        assert!(e.contains("does not match its digest"), "{e}");
        store.put(b"\0asm first").unwrap();
        assert_eq!(store.get(&digest).unwrap(), b"\0asm first");

        let missing = Digest::of(b"never stored");
        assert!(
            store
                .get(&missing)
                .unwrap_err()
                .to_string()
                .contains(missing.hex())
        );
    }
}
