//! The remote skill provider: skills from a static mirror served
//! over HTTP — an `index.json` holding an MCP Skills Extension (SEP-2640)
//! `skills/list` result, with every file beside it — or from an MCP server
//! offering the extension (`transport = mcp`), over Streamable HTTP.
//!
//! - The index is fetched with conditional GETs (ETag / If-None-Match); a
//!   poll answered 304 costs one small request and invalidates nothing.
//! - A skill's `SKILL.md` is fetched only when the skill is loaded, and
//!   every fetched file is checked against its digest in the index, and the
//!   frontmatter against the index entry: a mismatch is an error, and
//!   nothing is loaded.
//! - A network failure makes the observation incomplete; the host keeps the
//!   last complete view.
//! - Over MCP, every page of `skills/list` is read on each poll the server's
//!   `ttlMs` allows (bounded by `max_ttl_ms`); an unchanged listing
//!   invalidates nothing. Files come from `resources/read` when needed, and
//!   are checked exactly as a mirror's are.
//!
//! Settings: `url` (the mirror, e.g. `https://skills.example.com/team/`, or
//! the MCP endpoint), `transport` (`mirror`, the default, or `mcp`),
//! `max_index_bytes` (default 16 MiB; over MCP, per page) and `max_ttl_ms`
//! (default 5 minutes). Only origins the host granted are reachable.

// Its catalog is many small strings made and freed on every call.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: skillhost_guest_sdk::alloc::SizeClasses =
    skillhost_guest_sdk::alloc::SizeClasses::system();

mod exports;
mod fetch;
pub mod mcp;

use std::collections::BTreeMap;

use fetch::Url;
use serde_json::Value;
use skillhost_guest_sdk::delta::Changes;
use skillhost_guest_sdk::host::{self, LogLevel};
use skillhost_guest_sdk::skill::digest;
use skillhost_guest_sdk::skill::frontmatter::{parse_document, served_name};
use skillhost_guest_sdk::skill::json::frontmatter_json;
use skillhost_guest_sdk::skill::json_fields;
use skillhost_guest_sdk::skill::layout::SKILL_FILE;
use skillhost_guest_sdk::skill::segments;
use skillhost_guest_sdk::{Diagnostic, ProviderError, Severity, SkillEntry, WitFrontmatter};

/// The guest path remote skills live under; the host maps it to the URL.
pub const ROOT: &str = "/remote";
/// Largest index accepted unless the settings say otherwise.
pub const DEFAULT_MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// Largest resource fetched.
pub const MAX_RESOURCE_BYTES: u64 = 64 * 1024 * 1024;
/// Longest a server's `ttlMs` is honoured unless the settings say otherwise:
/// a server asking for more is still polled this often.
pub const DEFAULT_MAX_TTL_MS: u64 = 5 * 60 * 1000;

/// One file of a remote skill, from the index.
#[derive(Debug, Clone, PartialEq)]
struct File {
    /// Relative to the skill's folder.
    path: String,
    digest: String,
    /// Absent when the server did not say.
    size: Option<u64>,
}

/// One skill of the index.
#[derive(Debug, Clone, PartialEq)]
struct Remote {
    /// The skill's folder in the mirror (`skill://<folder>/SKILL.md`).
    folder: String,
    /// Its resources are `"dynamic"`: known only through `skills/get`.
    dynamic: bool,
    /// The frontmatter exactly as the index gives it.
    frontmatter: Value,
    entry: SkillEntry,
    files: Vec<File>,
}

/// Where the skills come from.
enum Transport {
    /// A static mirror: its `index.json`, fetched conditionally.
    Mirror {
        index_url: Url,
        etag: Option<String>,
    },
    /// An MCP server with the Skills Extension.
    Mcp {
        client: Box<mcp::Client>,
        /// The shortest `ttlMs` of the last listing.
        ttl_ms: Option<u64>,
        /// When it was listed (monotonic nanoseconds).
        listed_at: Option<u64>,
        max_ttl_ms: u64,
    },
}

/// The provider's state between calls.
pub struct RemoteProvider {
    id: String,
    transport: Transport,
    max_index_bytes: u64,
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

/// The folder of a `skill://<folder>/SKILL.md` URI (the folder may hold
/// several segments), safe to join to a URL.
fn skill_folder(uri: &str) -> Option<&str> {
    let folder = uri
        .strip_prefix("skill://")?
        .strip_suffix(SKILL_FILE)?
        .strip_suffix('/')?;
    segments::is_relative(folder).then_some(folder)
}

/// The path of a resource URI inside the skill at `folder`.
fn resource_path<'u>(uri: &'u str, folder: &str) -> Option<&'u str> {
    let path = uri
        .strip_prefix("skill://")?
        .strip_prefix(folder)?
        .strip_prefix('/')?;
    segments::is_relative(path).then_some(path)
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
        let folder =
            skill_folder(uri).ok_or_else(|| format!("{uri:?} is not skill://<path>/SKILL.md"))?;
        let frontmatter = value["frontmatter"].clone();
        if !frontmatter.is_object() {
            return Err(format!("{uri}: the frontmatter is not an object"));
        }
        let yaml = yaml_of(&frontmatter)?;
        // The index's own JSON is the frontmatter as published (a fetched
        // file is checked against it before it is served); the host derives
        // the fields from it, so only the name is read here.
        let json = frontmatter.to_string();
        let fields = json_fields::parse_fields(&json).map_err(|e| format!("{uri}: {e}"))?;
        let name = served_name(&fields, folder).map_err(|f| format!("{uri}: {f}"))?;
        let mut files = Vec::new();
        let mcp = matches!(self.transport, Transport::Mcp { .. });
        let no_files = Vec::new();
        let (listed, dynamic) = match &value["resources"] {
            Value::Array(list) => (list, false),
            Value::String(s) if s == "dynamic" && mcp => (&no_files, true),
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
            let path = resource_path(ruri, folder)
                .ok_or_else(|| format!("{ruri} is not a skill:// URI inside {folder}"))?;
            let digest = resource["digest"].as_str().unwrap_or_default();
            if !digest::is_sha256(digest) {
                return Err(format!(
                    "{ruri}: the digest must be sha256:<64 lowercase hex digits>"
                ));
            }
            files.push(File {
                path: path.to_string(),
                digest: digest.to_string(),
                size: resource["size"].as_u64(),
            });
        }
        if !dynamic && !files.iter().any(|f| f.path == SKILL_FILE) {
            return Err(format!("{uri}: the resources list has no SKILL.md"));
        }
        Ok(Remote {
            folder: folder.to_string(),
            dynamic,
            frontmatter,
            entry: SkillEntry {
                name,
                frontmatter: WitFrontmatter { raw: yaml, json },
                path: format!("{ROOT}/{folder}/{SKILL_FILE}"),
                base: format!("{ROOT}/{folder}"),
            },
            files,
        })
    }

    /// Where the listing comes from, for diagnostics.
    fn source_text(&self) -> String {
        match &self.transport {
            Transport::Mirror { index_url, .. } => index_url.text(),
            Transport::Mcp { client, .. } => client.endpoint(),
        }
    }

    /// The listing if it may have changed (`None`: the mirror said 304),
    /// as an object holding `skills`.
    fn fetch_listing(&mut self) -> Result<Option<Value>, String> {
        let fetched = self.fetched;
        match &mut self.transport {
            Transport::Mirror { index_url, etag } => {
                let url = index_url.text();
                let response = fetch::get(index_url, etag.as_deref(), self.max_index_bytes)?;
                match response.status {
                    304 if fetched => Ok(None),
                    200 => {
                        let index = serde_json::from_slice::<Value>(&response.body)
                            .map_err(|e| format!("{url}: the index is not JSON: {e}"))?;
                        *etag = response.header("etag").map(str::to_string);
                        Ok(Some(index))
                    }
                    status => Err(format!("{url}: HTTP {status}")),
                }
            }
            Transport::Mcp {
                client,
                ttl_ms,
                listed_at,
                ..
            } => {
                let listing = client.list().map_err(|e| e.to_string())?;
                let bytes = client.take_received();
                host::log(
                    LogLevel::Debug,
                    &format!(
                        "{}: listed {} skills in {} pages, {bytes} bytes",
                        client.endpoint(),
                        listing.skills.len(),
                        listing.pages
                    ),
                );
                *ttl_ms = listing.ttl_ms;
                *listed_at = Some(wasip2::clocks::monotonic_clock::now());
                Ok(Some(serde_json::json!({ "skills": listing.skills })))
            }
        }
    }

    /// Whether a host poll should list again: always for a mirror (a 304
    /// is cheap), and for an MCP server once its `ttlMs` (at most
    /// `max_ttl_ms`) has passed since the last complete listing.
    fn poll_due(&self) -> bool {
        match &self.transport {
            Transport::Mirror { .. } => true,
            Transport::Mcp {
                ttl_ms,
                listed_at,
                max_ttl_ms,
                ..
            } => {
                let (Some(ttl), Some(at), None) = (ttl_ms, listed_at, &self.failure) else {
                    return true;
                };
                let wait = ttl.min(max_ttl_ms).saturating_mul(1_000_000);
                wasip2::clocks::monotonic_clock::now().saturating_sub(*at) >= wait
            }
        }
    }

    /// Fetches the listing if it changed. Returns whether what the catalog
    /// shows changed.
    fn refresh(&mut self) -> bool {
        let failure = match self.fetch_listing() {
            // Unchanged: only a failure that ended changes what is shown.
            Ok(None) => None,
            Ok(Some(index)) => {
                let (skills, problems) = self.parse_index(&index);
                let changed = !self.fetched
                    || skills != self.skills
                    || problems != self.problems
                    || !self.refused.is_empty()
                    || self.failure.is_some();
                self.fetched = true;
                self.failure = None;
                if changed {
                    self.record_changes(&skills);
                    self.skills = skills;
                    self.problems = problems;
                    self.refused.clear();
                }
                return changed;
            }
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
        let url = self.source_text();
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
            .find(|s| s.entry.name == name)
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

    /// The skill with its files listed: a `"dynamic"` skill's come from
    /// `skills/get`, checked as a listing entry is.
    fn with_files(&mut self, skill: Remote) -> Result<Remote, ProviderError> {
        if !skill.dynamic {
            return Ok(skill);
        }
        let Transport::Mcp { client, .. } = &mut self.transport else {
            return Ok(skill);
        };
        let uri = format!("skill://{}/{SKILL_FILE}", skill.folder);
        let value = client
            .get(&uri)
            .map_err(|e| ProviderError::Io(e.to_string()))?;
        let fresh = self
            .entry(&value)
            .map_err(|m| ProviderError::Invalid(format!("skills/get {uri}: {m}")))?;
        if fresh.folder != skill.folder || fresh.entry.name != skill.entry.name {
            return Err(ProviderError::Invalid(format!(
                "skills/get {uri} answered for another skill"
            )));
        }
        Ok(Remote {
            entry: skill.entry,
            frontmatter: skill.frontmatter,
            ..fresh
        })
    }

    /// Fetches one file of a skill and checks it against its digest and
    /// size. A file of a `"dynamic"` skill that `skills/get` did not list is
    /// read unchecked: there is nothing to check it against.
    fn fetch_file(
        &mut self,
        skill: &Remote,
        path: &str,
        limit: u64,
    ) -> Result<Vec<u8>, ProviderError> {
        let file = match skill.files.iter().find(|f| f.path == path) {
            Some(file) => Some(file.clone()),
            None if skill.dynamic && segments::is_relative(path) => None,
            None => {
                return Err(ProviderError::NotFound(format!(
                    "{} has no file {path:?}",
                    skill.folder
                )));
            }
        };
        let relative = format!("{}/{path}", skill.folder);
        let (place, body) = match &mut self.transport {
            Transport::Mirror { index_url, .. } => {
                let url = index_url.join(&relative);
                let response = fetch::get(&url, None, limit).map_err(ProviderError::Io)?;
                if response.status != 200 {
                    return Err(ProviderError::Io(format!(
                        "{}: HTTP {}",
                        url.text(),
                        response.status
                    )));
                }
                (url.text(), response.body)
            }
            Transport::Mcp { client, .. } => {
                let uri = format!("skill://{relative}");
                let body = client
                    .read(&uri, limit)
                    .map_err(|e| ProviderError::Io(e.to_string()))?;
                (uri, body)
            }
        };
        if body.len() as u64 > limit {
            return Err(ProviderError::Invalid(format!(
                "{place}: larger than {limit} bytes"
            )));
        }
        let Some(file) = file else {
            return Ok(body);
        };
        let listing = match self.transport {
            Transport::Mirror { .. } => "the index",
            Transport::Mcp { .. } => "the listing",
        };
        let size_wrong = file.size.filter(|&size| size != body.len() as u64);
        let actual = digest::sha256(&body);
        if actual != file.digest {
            let also = match size_wrong {
                Some(size) => format!(", and its size is {} bytes, not {size}", body.len()),
                None => String::new(),
            };
            let message = format!(
                "{place}: the file's digest is {actual}, but {listing} says {}{also}; refused",
                file.digest
            );
            return Err(self.refuse(place, "digest", message));
        }
        // A right digest with a wrong size: the entry itself is wrong.
        if let Some(size) = size_wrong {
            let message = format!(
                "{place}: its size is {} bytes, but {listing} says {size}; refused",
                body.len()
            );
            return Err(self.refuse(place, "size", message));
        }
        Ok(body)
    }
}

skillhost_guest_sdk::export_provider!(RemoteProvider);

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
