//! The user's approval of a remote skill's `allowed-tools`.
//!
//! SEP-2640 has a host not take a remote skill's `allowed-tools` as a
//! pre-approval on the server's word. `skillhost approve LABEL:name` binds
//! the approval to the skill's full set of `{uri, digest}` as its source
//! lists it now; any file added, removed or changed (any digest) revokes
//! it. The record lives in the user's state folder, outside every skill
//! discovery root.

use crate::error::Error;
use crate::model::Scope;
use crate::paths::{private_dir, read_regular, required_state_dir};
use crate::registry::Registry;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The record's file name in the state folder.
pub const FILE_NAME: &str = "approved-skills.json";
/// Largest record read, in bytes.
const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// One file an approval is bound to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Binding {
    /// Where the file is (the skill's base and its path).
    pub uri: String,
    /// `sha256:<hex>`.
    pub digest: String,
}

/// The user's record of approved remote skills.
#[derive(Debug, Clone)]
pub struct Approvals {
    file: PathBuf,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The `{uri, digest}` set of skill `name` as its source lists it now.
pub fn bindings(registry: &Registry, name: &str) -> Result<Vec<Binding>, Error> {
    let catalog = registry.snapshot();
    let skill = catalog.get(name).ok_or_else(|| catalog.unknown(name))?;
    let base = skill.base.to_string();
    let mut files: Vec<Binding> = registry
        .list_resources(skill.name())?
        .into_iter()
        .map(|r| Binding {
            uri: format!("{}/{}", base.trim_end_matches('/'), r.path),
            digest: r.digest,
        })
        .collect();
    files.sort();
    Ok(files)
}

impl Approvals {
    /// The record in the user's state folder (`SKILLHOST_STATE_DIR`, ...).
    pub fn open() -> Result<Approvals, Error> {
        Ok(Approvals::in_dir(&required_state_dir()?))
    }

    /// The record in `dir`.
    pub fn in_dir(dir: &Path) -> Approvals {
        Approvals {
            file: dir.join(FILE_NAME),
        }
    }

    /// The record's file.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Skill name → the bindings approved.
    fn entries(&self) -> Result<Vec<(String, Vec<Binding>)>, Error> {
        let bytes = match read_regular(&self.file, MAX_RECORD_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.file)(e)),
        };
        // A record that cannot be read approves nothing.
        let value: Value = serde_json::from_slice(&bytes).unwrap_or_default();
        Ok(value["approved"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|e| {
                        let files = e["files"]
                            .as_array()?
                            .iter()
                            .map(|f| {
                                Some(Binding {
                                    uri: f["uri"].as_str()?.to_string(),
                                    digest: f["digest"].as_str()?.to_string(),
                                })
                            })
                            .collect::<Option<Vec<_>>>()?;
                        Some((e["skill"].as_str()?.to_string(), files))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Whether the user approved skill `name` exactly as its source lists
    /// it now. Skills that are not remote need no approval.
    pub fn is_approved(&self, registry: &Registry, name: &str) -> Result<bool, Error> {
        let catalog = registry.snapshot();
        let Some(skill) = catalog.get(name) else {
            return Ok(false);
        };
        if skill.scope != Scope::Remote {
            return Ok(true);
        }
        let now = bindings(registry, skill.name())?;
        Ok(self
            .entries()?
            .iter()
            .any(|(n, files)| n == skill.name() && *files == now))
    }

    /// Records the user's approval of skill `name` as it is now, and
    /// returns what it is bound to.
    pub fn approve(&self, registry: &Registry, name: &str) -> Result<Vec<Binding>, Error> {
        let files = bindings(registry, name)?;
        let dir = self.file.parent().unwrap_or(Path::new("."));
        private_dir(dir).map_err(io(dir))?;
        let mut entries: Vec<(String, Vec<Binding>)> = self
            .entries()?
            .into_iter()
            .filter(|(n, _)| n != name)
            .collect();
        entries.push((name.to_string(), files.clone()));
        let record = json!({
            "approved": entries
                .iter()
                .map(|(n, files)| json!({
                    "skill": n,
                    "files": files.iter().map(|f| json!({"uri": f.uri, "digest": f.digest})).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>(),
        });
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
        tmp.write_all(record.to_string().as_bytes())
            .map_err(io(&self.file))?;
        tmp.as_file().sync_data().map_err(io(&self.file))?;
        tmp.persist(&self.file)
            .map_err(|e| io(&self.file)(e.error))?;
        Ok(files)
    }
}

/// Whether skill `name`'s `allowed-tools` may be taken as pre-approved:
/// always for a skill that is not remote; for a remote one, only while the
/// user's approval still matches every digest.
pub fn tools_approved(registry: &Registry, name: &str) -> bool {
    let remote = registry
        .snapshot()
        .get(name)
        .is_some_and(|s| s.scope == Scope::Remote);
    !remote
        || Approvals::open()
            .and_then(|a| a.is_approved(registry, name))
            .unwrap_or(false)
}
