//! Trusting a configuration file found in the current folder.
//!
//! A `skillhost.toml` can run its own component, grant it any folder and
//! any origin. One passed with `--config` is the user's choice; one merely
//! found in the current folder (a cloned repository's, say) takes effect
//! only once the user trusted exactly those bytes: `skillhost trust`
//! records its path and SHA-256 in the user's state folder, and a changed
//! file needs trusting again.

use super::Config;
use crate::error::Error;
use crate::paths::{private_dir, read_regular, required_state_dir};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The record's file name in the state folder.
pub const FILE_NAME: &str = "trusted-configs";
/// Largest record read, in bytes.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// The user's record of trusted configuration files.
#[derive(Debug, Clone)]
pub struct TrustStore {
    file: PathBuf,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

impl TrustStore {
    /// The record in the user's state folder (`SKILLHOST_STATE_DIR`, ...).
    pub fn open() -> Result<TrustStore, Error> {
        Ok(TrustStore::in_dir(&required_state_dir()?))
    }

    /// The record in `dir`.
    pub fn in_dir(dir: &Path) -> TrustStore {
        TrustStore {
            file: dir.join(FILE_NAME),
        }
    }

    /// The (digest, canonical path) pairs recorded.
    fn entries(&self) -> Result<Vec<(String, PathBuf)>, Error> {
        let bytes = match read_regular(&self.file, MAX_RECORD_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.file)(e)),
        };
        Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|line| {
                let (digest, path) = line.split_once(' ')?;
                Some((digest.to_string(), PathBuf::from(path)))
            })
            .collect())
    }

    /// Whether the user trusted `config` as it is now.
    pub fn is_trusted(&self, config: &Config) -> Result<bool, Error> {
        self.is_trusted_file(&config.path, &config.digest)
    }

    /// Whether the file at `path` with bytes of `digest` (see
    /// [`Config::digest_of`]) is trusted: checked before the file is parsed.
    pub fn is_trusted_file(&self, path: &Path, digest: &str) -> Result<bool, Error> {
        let path = canonical(path)?;
        Ok(self
            .entries()?
            .iter()
            .any(|(d, p)| *p == path && d == digest))
    }

    /// Records that the user trusts `config` as it is now.
    pub fn trust(&self, config: &Config) -> Result<(), Error> {
        let path = canonical(&config.path)?;
        let dir = self.file.parent().unwrap_or(Path::new("."));
        private_dir(dir).map_err(io(dir))?;
        let mut entries: Vec<(String, PathBuf)> = self
            .entries()?
            .into_iter()
            .filter(|(_, p)| *p != path)
            .collect();
        entries.push((config.digest.clone(), path));
        let mut text = String::new();
        for (digest, p) in &entries {
            // A path with a newline could forge a record line.
            if let Some(p) = p.to_str().filter(|p| !p.contains('\n')) {
                text.push_str(&format!("{digest} {p}\n"));
            }
        }
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
        tmp.write_all(text.as_bytes()).map_err(io(&self.file))?;
        tmp.as_file().sync_data().map_err(io(&self.file))?;
        tmp.persist(&self.file)
            .map_err(|e| io(&self.file)(e.error))?;
        Ok(())
    }
}

fn canonical(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_trusted_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("skillhost.toml");
        std::fs::write(
            &path,
            "[[provider]]\nbuiltin = \"local\"\nroots = [\"a\"]\n",
        )
        .unwrap();
        let store = TrustStore::in_dir(&state);
        let config = Config::load(&path).unwrap();
        assert!(!store.is_trusted(&config).unwrap());
        store.trust(&config).unwrap();
        assert!(store.is_trusted(&config).unwrap());
        std::fs::write(
            &path,
            "[[provider]]\nbuiltin = \"local\"\nroots = [\"/\"]\n",
        )
        .unwrap();
        let changed = Config::load(&path).unwrap();
        assert!(
            !store.is_trusted(&changed).unwrap(),
            "a changed file needs trust again"
        );
        assert!(
            changed
                .asks()
                .iter()
                .any(|a| a == "reads / (outside its folder)")
        );
    }
}
