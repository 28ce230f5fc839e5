//! The remote skill provider: skills from a static mirror served
//! over HTTP — an `index.json` holding an MCP Skills Extension (SEP-2640)
//! `skills/list` result, with every file beside it.
//!
//! - The index is fetched with conditional GETs (ETag / If-None-Match); a
//!   poll answered 304 costs one small request and invalidates nothing.
//! - A skill's `SKILL.md` is fetched only when the skill is loaded, and
//!   every fetched file is checked against its digest in the index, and the
//!   frontmatter against the index entry: a mismatch is an error, and
//!   nothing is loaded.
//! - A network failure makes the observation incomplete; the host keeps the
//!   last complete view.
//!
//! Settings: `url` (the mirror, e.g. `https://skills.example.com/team/`) and
//! `max_index_bytes` (default 16 MiB). Only origins the host granted are
//! reachable.

mod fetch;

use std::collections::BTreeMap;

use fetch::Url;
use serde_json::Value;
use skillhost_guest_sdk::delta::Changes;
use skillhost_guest_sdk::host::{self, LogLevel};
use skillhost_guest_sdk::skill::digest;
use skillhost_guest_sdk::skill::frontmatter::{MAX_DOCUMENT_BYTES, parse_document};
use skillhost_guest_sdk::skill::json::frontmatter_json;
use skillhost_guest_sdk::skill::layout::SKILL_FILE;
use skillhost_guest_sdk::skill::segments;
use skillhost_guest_sdk::{
    ChangeEvent, ChangeKind, Diagnostic, Observation, Provider, ProviderConfig, ProviderError,
    Resource, Severity, SkillDocument, SkillEntry, SnapshotRequest, to_wit_frontmatter,
};

/// The guest path remote skills live under; the host maps it to the URL.
pub const ROOT: &str = "/remote";
/// Largest index accepted unless the settings say otherwise.
pub const DEFAULT_MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// Largest resource fetched.
pub const MAX_RESOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// One file of a remote skill, from the index.
#[derive(Debug, Clone, PartialEq)]
struct File {
    /// Relative to the skill's folder.
    path: String,
    digest: String,
    size: u64,
}

/// One skill of the index.
#[derive(Debug, Clone, PartialEq)]
struct Remote {
    /// The skill's folder in the mirror (`skill://<folder>/SKILL.md`).
    folder: String,
    /// The frontmatter exactly as the index gives it.
    frontmatter: Value,
    entry: SkillEntry,
    files: Vec<File>,
}

/// The provider's state between calls.
pub struct RemoteProvider {
    id: String,
    index_url: Url,
    max_index_bytes: u64,
    etag: Option<String>,
    skills: Vec<Remote>,
    problems: Vec<Diagnostic>,
    /// Files refused since the index last changed, by URL: shown in every
    /// observation, so the catalog says the mirror cannot be trusted.
    refused: BTreeMap<String, Diagnostic>,
    failure: Option<String>,
    fetched: bool,
    changes: Changes,
}

fn problem(path: &str, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        path: path.to_string(),
        line: None,
        field: None,
        message,
    }
}

/// The folder and file of a `skill://<folder>/<file>` URI, both safe to
/// join to the mirror's URL.
fn split_uri(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("skill://")?;
    let (folder, file) = rest.split_once('/')?;
    (segments::is_relative(folder) && segments::is_relative(file)).then_some((folder, file))
}

/// The YAML text of a JSON frontmatter, as `SKILL.md` would hold it.
fn yaml_of(frontmatter: &Value) -> Result<String, String> {
    serde_yaml::to_string(frontmatter).map_err(|e| e.to_string())
}

/// The frontmatter of a fetched `SKILL.md`, as JSON, read by the same
/// parser and converter the mirror was written with.
fn json_of_document(bytes: &[u8], folder: &str) -> Result<Value, String> {
    let doc = parse_document(bytes, folder).map_err(|f| f.to_string())?;
    Ok(frontmatter_json(&doc.frontmatter.raw))
}

impl RemoteProvider {
    /// Parses one index entry into a skill, or says why it is unusable.
    fn entry(&self, value: &Value) -> Result<Remote, String> {
        let uri = value["uri"].as_str().ok_or("an entry has no uri")?;
        let (folder, file) =
            split_uri(uri).ok_or_else(|| format!("{uri:?} is not skill://<name>/SKILL.md"))?;
        if file != SKILL_FILE {
            return Err(format!("{uri:?} does not name a SKILL.md"));
        }
        let frontmatter = value["frontmatter"].clone();
        if !frontmatter.is_object() {
            return Err(format!("{uri}: the frontmatter is not an object"));
        }
        let yaml = yaml_of(&frontmatter)?;
        let document = format!("---\n{yaml}---\n");
        let parsed =
            parse_document(document.as_bytes(), folder).map_err(|f| format!("{uri}: {f}"))?;
        let mut files = Vec::new();
        let listed = match &value["resources"] {
            Value::Array(list) => list,
            Value::String(s) if s == "dynamic" => {
                return Err(format!(
                    "{uri}: its resources are \"dynamic\", so its files cannot be verified; a mirror must list every file with its digest"
                ));
            }
            _ => return Err(format!("{uri}: no resources list")),
        };
        for resource in listed {
            let ruri = resource["uri"]
                .as_str()
                .ok_or_else(|| format!("{uri}: a resource has no uri"))?;
            let (rfolder, path) =
                split_uri(ruri).ok_or_else(|| format!("{ruri:?} is not a skill:// URI"))?;
            if rfolder != folder {
                return Err(format!("{ruri} lies outside {folder}"));
            }
            let digest = resource["digest"].as_str().unwrap_or_default();
            if !digest::is_sha256(digest) {
                return Err(format!(
                    "{ruri}: the digest must be sha256:<64 lowercase hex digits>"
                ));
            }
            files.push(File {
                path: path.to_string(),
                digest: digest.to_string(),
                size: resource["size"].as_u64().unwrap_or(0),
            });
        }
        if !files.iter().any(|f| f.path == SKILL_FILE) {
            return Err(format!("{uri}: the resources list has no SKILL.md"));
        }
        let mut fm = parsed.frontmatter;
        fm.raw = yaml;
        Ok(Remote {
            folder: folder.to_string(),
            frontmatter,
            entry: SkillEntry {
                frontmatter: to_wit_frontmatter(fm),
                path: format!("{ROOT}/{folder}/{SKILL_FILE}"),
                base: format!("{ROOT}/{folder}"),
            },
            files,
        })
    }

    /// Fetches the index if it changed. Returns whether what the catalog
    /// shows changed.
    fn refresh(&mut self) -> bool {
        let url = self.index_url.text();
        let failure = match fetch::get(&self.index_url, self.etag.as_deref(), self.max_index_bytes)
        {
            // Unchanged: only a failure that ended changes what is shown.
            Ok(response) if response.status == 304 && self.fetched => None,
            Ok(response) if response.status == 200 => {
                match serde_json::from_slice::<Value>(&response.body) {
                    Ok(index) => {
                        let (skills, problems) = self.parse_index(&index);
                        let changed = !self.fetched
                            || skills != self.skills
                            || problems != self.problems
                            || !self.refused.is_empty()
                            || self.failure.is_some();
                        self.fetched = true;
                        self.etag = response.etag;
                        self.failure = None;
                        if changed {
                            self.record_changes(&skills);
                            self.skills = skills;
                            self.problems = problems;
                            self.refused.clear();
                        }
                        return changed;
                    }
                    Err(e) => Some(format!("{url}: the index is not JSON: {e}")),
                }
            }
            Ok(response) => Some(format!("{url}: HTTP {}", response.status)),
            Err(e) => Some(e),
        };
        let changed = failure != self.failure;
        self.failure = failure;
        if changed {
            self.changes.touched();
        }
        changed
    }

    /// Records which entries a new index adds, changes and removes, so the
    /// host is sent only those.
    fn record_changes(&mut self, skills: &[Remote]) {
        self.changes.touched();
        for old in &self.skills {
            if !skills.iter().any(|s| s.entry.path == old.entry.path) {
                self.changes.removed(&old.entry.path);
            }
        }
        for new in skills {
            let old = self.skills.iter().find(|s| s.entry.path == new.entry.path);
            if old != Some(new) {
                self.changes.changed(&new.entry.path);
            }
        }
    }

    /// The skills of an index, sorted by folder, and its problems.
    fn parse_index(&self, index: &Value) -> (Vec<Remote>, Vec<Diagnostic>) {
        let url = self.index_url.text();
        let Some(entries) = index["skills"].as_array() else {
            return (
                Vec::new(),
                vec![problem(
                    &url,
                    "the index has no \"skills\" list".to_string(),
                )],
            );
        };
        let mut problems = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut skills: Vec<Remote> = Vec::with_capacity(entries.len());
        for value in entries {
            match self.entry(value) {
                Ok(skill) if !seen.insert(skill.folder.clone()) => {
                    problems.push(problem(&url, format!("{} is listed twice", skill.folder)));
                }
                Ok(skill) => skills.push(skill),
                Err(message) => problems.push(problem(&url, message)),
            }
        }
        skills.sort_by(|a, b| a.folder.cmp(&b.folder));
        (skills, problems)
    }

    fn skill(&mut self, name: &str) -> Result<Remote, ProviderError> {
        if !self.fetched {
            self.refresh();
        }
        self.skills
            .iter()
            .find(|s| s.entry.frontmatter.name == name)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(format!("no remote skill named {name:?}")))
    }

    /// Notes a refused file (once) and tells the host the catalog changed.
    fn refuse(&mut self, url: String, field: &str, message: String) -> ProviderError {
        let diagnostic = Diagnostic {
            severity: Severity::Error,
            path: url.clone(),
            line: None,
            field: Some(field.to_string()),
            message: message.clone(),
        };
        if self.refused.get(&url) != Some(&diagnostic) {
            self.refused.insert(url, diagnostic);
            self.changes.touched();
            host::invalidate_provider();
        }
        ProviderError::Invalid(message)
    }

    /// Fetches one file of a skill and checks it against its digest.
    fn fetch_file(
        &mut self,
        skill: &Remote,
        path: &str,
        limit: u64,
    ) -> Result<Vec<u8>, ProviderError> {
        let file = skill.files.iter().find(|f| f.path == path).ok_or_else(|| {
            ProviderError::NotFound(format!("{} has no file {path:?}", skill.folder))
        })?;
        let url = self
            .index_url
            .join(&format!("{}/{}", skill.folder, file.path));
        let response = fetch::get(&url, None, limit).map_err(ProviderError::Io)?;
        if response.status != 200 {
            return Err(ProviderError::Io(format!(
                "{}: HTTP {}",
                url.text(),
                response.status
            )));
        }
        let actual = digest::sha256(&response.body);
        if actual != file.digest {
            let message = format!(
                "{}: the file's digest is {actual}, but the index says {}; refused",
                url.text(),
                file.digest
            );
            return Err(self.refuse(url.text(), "digest", message));
        }
        Ok(response.body)
    }
}

impl Provider for RemoteProvider {
    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        let setting = |key: &str| {
            config
                .settings
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let url = setting("url")
            .ok_or_else(|| ProviderError::Invalid("the remote provider needs a url".to_string()))?;
        let base = Url::parse(&url).map_err(ProviderError::Invalid)?;
        let index_url = if base.path.ends_with(".json") {
            base
        } else {
            Url {
                path: format!("{}/", base.path.trim_end_matches('/')),
                ..base
            }
            .join("index.json")
        };
        let max_index_bytes = setting("max_index_bytes")
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_MAX_INDEX_BYTES);
        Ok(RemoteProvider {
            id: config.id,
            index_url,
            max_index_bytes,
            etag: None,
            skills: Vec::new(),
            problems: Vec::new(),
            refused: BTreeMap::new(),
            failure: None,
            fetched: false,
            changes: Changes::new(),
        })
    }

    fn snapshot(&mut self, request: SnapshotRequest) -> Observation {
        if request.rescan || !self.fetched || self.failure.is_some() {
            self.refresh();
        }
        let mut diagnostics = self.problems.clone();
        diagnostics.extend(self.refused.values().cloned());
        if let Some(failure) = &self.failure {
            diagnostics.push(problem(
                &self.index_url.text(),
                format!("cannot fetch the index: {failure}"),
            ));
        }
        let complete = self.failure.is_none() && self.fetched;
        let entries: Vec<SkillEntry> = self.skills.iter().map(|s| s.entry.clone()).collect();
        self.changes.observation(
            request.known,
            &mut entries.as_slice(),
            diagnostics,
            complete,
        )
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        let skill = self.skill(name)?;
        let bytes = self.fetch_file(&skill, "SKILL.md", MAX_DOCUMENT_BYTES)?;
        let fetched = json_of_document(&bytes, &skill.folder)
            .map_err(|e| ProviderError::Invalid(format!("{}/SKILL.md: {e}", skill.folder)))?;
        if fetched != skill.frontmatter {
            // The index and the file disagree: neither can be trusted.
            let url = self
                .index_url
                .join(&format!("{}/SKILL.md", skill.folder))
                .text();
            let message = format!("{url}: its frontmatter differs from the index entry; refused");
            return Err(self.refuse(url, "frontmatter", message));
        }
        let doc = parse_document(&bytes, &skill.folder)
            .map_err(|f| ProviderError::Invalid(format!("{}/SKILL.md: {f}", skill.folder)))?;
        Ok(SkillDocument {
            entry: skill.entry,
            body: doc.body.to_string(),
        })
    }

    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let skill = self.skill(name)?;
        Ok(skill
            .files
            .iter()
            .map(|f| Resource {
                path: f.path.clone(),
                size: f.size,
                digest: f.digest.clone(),
            })
            .collect())
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let skill = self.skill(name)?;
        self.fetch_file(&skill, path, MAX_RESOURCE_BYTES)
    }

    fn on_change(&mut self, events: Vec<ChangeEvent>) {
        // The host's poll arrives as a rescan; only a changed index counts.
        if events.iter().any(|e| e.kind == ChangeKind::Rescan) && self.refresh() {
            host::log(LogLevel::Debug, &format!("{}: the index changed", self.id));
            host::invalidate_provider();
        }
    }

    fn observe(&mut self, _paths: Vec<String>) {}
}

skillhost_guest_sdk::export_provider!(RemoteProvider);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_uris_name_a_folder_and_a_safe_path() {
        assert_eq!(split_uri("skill://pdf/SKILL.md"), Some(("pdf", "SKILL.md")));
        assert_eq!(
            split_uri("skill://pdf/references/a.md"),
            Some(("pdf", "references/a.md"))
        );
        for bad in [
            "skill://../SKILL.md",
            "skill://a/../b",
            "http://a/SKILL.md",
            "skill://a",
            "skill:///x",
        ] {
            assert_eq!(split_uri(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_documents_frontmatter_reads_as_json() {
        let json = json_of_document(
            b"---\nname: x\ndescription: d\nmetadata:\n  n: 1\n---\nbody\n",
            "x",
        )
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "x", "description": "d", "metadata": {"n": 1}})
        );
    }
}
