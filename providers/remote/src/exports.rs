//! The provider contract's exports for [`RemoteProvider`]: its manifest,
//! and each call the host makes answered from the mirror or MCP server.

use super::{
    DEFAULT_MAX_INDEX_BYTES, DEFAULT_MAX_TTL_MS, MAX_RESOURCE_BYTES, RemoteProvider, Transport,
    json_of_document, mcp, problem,
};
use crate::fetch::Url;
use skillhost_guest_sdk::delta::Changes;
use skillhost_guest_sdk::host::{self, LogLevel};
use skillhost_guest_sdk::skill::frontmatter::{MAX_DOCUMENT_BYTES, parse_document};
use skillhost_guest_sdk::skill::layout::SKILL_FILE;
use skillhost_guest_sdk::{
    ChangeEvent, ChangeKind, Manifest, Need, Observation, Provider, ProviderConfig, ProviderError,
    Resource, SettingSpec, SkillDocument, SkillEntry, SnapshotRequest,
};
use std::collections::BTreeMap;

impl Provider for RemoteProvider {
    fn manifest() -> Manifest {
        let setting = |key: &str, required: bool, description: &str| SettingSpec {
            key: key.to_string(),
            required,
            description: description.to_string(),
        };
        Manifest {
            summary: "Skills published by a static mirror (index.json) or an MCP server with \
                      the Skills Extension, fetched over HTTPS and checked against their digests"
                .to_string(),
            roots: Need::None,
            origins: vec!["*".to_string()],
            settings: vec![
                setting(
                    "url",
                    true,
                    "the mirror's index (or folder) or the MCP endpoint",
                ),
                setting("transport", false, "mirror (the default) or mcp"),
                setting(
                    "max_index_bytes",
                    false,
                    "largest index or listing accepted",
                ),
                setting(
                    "max_ttl_ms",
                    false,
                    "longest an MCP server's ttlMs is honoured",
                ),
            ],
        }
    }

    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        let setting = |key: &str| skillhost_guest_sdk::setting(&config, key).map(str::to_string);
        let url = setting("url")
            .ok_or_else(|| ProviderError::Invalid("the remote provider needs a url".to_string()))?;
        let base = Url::parse(&url).map_err(ProviderError::Invalid)?;
        let max_index_bytes = setting("max_index_bytes")
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_MAX_INDEX_BYTES);
        let transport = match setting("transport").as_deref() {
            None | Some("mirror") => {
                let index_url = if base.path.ends_with(".json") {
                    base
                } else {
                    Url {
                        path: format!("{}/", base.path.trim_end_matches('/')),
                        ..base
                    }
                    .join("index.json")
                };
                Transport::Mirror {
                    index_url,
                    etag: None,
                }
            }
            Some("mcp") => Transport::Mcp {
                client: Box::new(mcp::Client::new(base, max_index_bytes)),
                ttl_ms: None,
                listed_at: None,
                max_ttl_ms: setting("max_ttl_ms")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(DEFAULT_MAX_TTL_MS),
            },
            Some(other) => {
                return Err(ProviderError::Invalid(format!(
                    "transport {other:?}: expected \"mirror\" or \"mcp\""
                )));
            }
        };
        Ok(RemoteProvider {
            id: config.id,
            transport,
            max_index_bytes,
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
            let what = match self.transport {
                Transport::Mirror { .. } => "cannot fetch the index",
                Transport::Mcp { .. } => "cannot list the skills",
            };
            diagnostics.push(problem(&self.source_text(), format!("{what}: {failure}")));
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
        let skill = self.with_files(skill)?;
        let bytes = self.fetch_file(&skill, SKILL_FILE, MAX_DOCUMENT_BYTES)?;
        let fetched = json_of_document(&bytes, &skill.folder)
            .map_err(|e| ProviderError::Invalid(format!("{}/SKILL.md: {e}", skill.folder)))?;
        if fetched != skill.frontmatter {
            // The index and the file disagree: neither can be trusted.
            let url = match &self.transport {
                Transport::Mirror { index_url, .. } => index_url
                    .join(&format!("{}/{SKILL_FILE}", skill.folder))
                    .text(),
                Transport::Mcp { .. } => format!("skill://{}/{SKILL_FILE}", skill.folder),
            };
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
        let skill = self.with_files(skill)?;
        Ok(skill
            .files
            .iter()
            .map(|f| Resource {
                path: f.path.clone(),
                size: f.size.unwrap_or(0),
                digest: f.digest.clone(),
            })
            .collect())
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let skill = self.skill(name)?;
        let skill = self.with_files(skill)?;
        self.fetch_file(&skill, path, MAX_RESOURCE_BYTES)
    }

    fn on_change(&mut self, events: Vec<ChangeEvent>) {
        // The host's poll arrives as a rescan; only a changed index counts,
        // and an MCP server is asked again only once its ttlMs allows.
        if events.iter().any(|e| e.kind == ChangeKind::Rescan) && self.poll_due() && self.refresh()
        {
            host::log(LogLevel::Debug, &format!("{}: the index changed", self.id));
            host::invalidate_provider();
        }
    }

    fn observe(&mut self, _paths: Vec<String>) {}
}
