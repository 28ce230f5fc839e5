//! The local filesystem skill provider (SPEC B2, A1–A4), as a component.
//!
//! It reads only the roots the host preopened for it, read-only. Bundle
//! (`<root>/<name>/SKILL.md`) and flat (`<root>/<name>.md`) layouts are
//! discovered; deeper files are never taken for skills. Parsed frontmatter is
//! kept between calls and a document is read again only when its size or
//! mtime changed. Bodies are never cached: each `load` reads the file.

mod fs;
mod resources;
mod scan;

use fs::{FsError, Preopens};
use scan::{ScanResult, Scanner};
use skillhost_guest_sdk::frontmatter::{Finding, MAX_DOCUMENT_BYTES, parse_document};
use skillhost_guest_sdk::host::{self, LogLevel};
use skillhost_guest_sdk::{
    ChangeEvent, ChangeKind, Diagnostic, Observation, Provider, ProviderConfig, ProviderError,
    Resource, Severity, SkillDocument, SkillEntry, to_wit_diagnostic, to_wit_frontmatter,
};
use std::collections::BTreeSet;

/// The provider's state between calls.
pub struct LocalProvider {
    id: String,
    roots: Vec<String>,
    preopens: Preopens,
    scanner: Scanner,
    last: Option<ScanResult>,
    watched: BTreeSet<String>,
}

impl LocalProvider {
    fn rescan(&mut self) -> &ScanResult {
        let result = self.scanner.scan(&self.roots, &self.preopens);
        self.sync_watches(&result.watch);
        self.last.insert(result)
    }

    /// Asks the host to watch exactly the folders whose changes matter: each
    /// root and each bundle folder (never a whole tree).
    fn sync_watches(&mut self, wanted: &[String]) {
        let wanted: BTreeSet<String> = wanted.iter().cloned().collect();
        let added: Vec<String> = wanted.difference(&self.watched).cloned().collect();
        let removed: Vec<String> = self.watched.difference(&wanted).cloned().collect();
        if !removed.is_empty() {
            host::unwatch(&removed);
        }
        let mut accepted = wanted;
        if !added.is_empty() {
            for refusal in host::watch(&added, false) {
                host::log(
                    LogLevel::Warn,
                    &format!("{}: watch {} refused: {}", self.id, refusal.path, refusal.reason),
                );
                accepted.remove(&refusal.path);
            }
        }
        self.watched = accepted;
    }

    fn current(&mut self) -> &ScanResult {
        if self.last.is_none() {
            self.rescan();
        }
        self.last.get_or_insert_with(ScanResult::default)
    }

    /// Whether a change at `path` can alter the catalog: a root-level entry
    /// or a skill document. Files deeper in a bundle (references, scripts,
    /// assets) cannot.
    fn matters(&self, path: &str) -> bool {
        self.roots.iter().any(|root| {
            let Some(rest) = path.strip_prefix(root.as_str()) else {
                return false;
            };
            let Some(rest) = rest.strip_prefix('/') else {
                return rest.is_empty();
            };
            match rest.split_once('/') {
                None => true,
                Some((_, inner)) => inner == scan::SKILL_FILE,
            }
        })
    }

    /// Rescans after changes and invalidates only when what the catalog
    /// shows (members, frontmatter, diagnostics, completeness) differs.
    fn react(&mut self, paths: impl IntoIterator<Item = String>, forced: bool) {
        let relevant = forced || paths.into_iter().any(|p| self.matters(&p));
        if !relevant {
            return;
        }
        let before = self.last.take();
        let after = self.rescan();
        if before.as_ref() != Some(after) {
            host::invalidate_provider();
        }
    }

}

fn entry(d: &scan::Discovered) -> SkillEntry {
    SkillEntry {
        frontmatter: to_wit_frontmatter(d.frontmatter.clone()),
        path: d.doc.clone(),
        base: d.base.clone(),
    }
}

fn diagnostics(result: &ScanResult) -> Vec<Diagnostic> {
    result
        .problems
        .iter()
        .map(|p| {
            let severity = if p.error {
                Severity::Error
            } else {
                Severity::Warning
            };
            to_wit_diagnostic(&p.path, severity, p.finding.clone())
        })
        .collect()
}

fn read_error(path: &str, e: FsError) -> ProviderError {
    match e {
        FsError::Missing => ProviderError::NotFound(format!("{path} no longer exists")),
        FsError::TooLarge(n) => ProviderError::Invalid(format!("{path}: {}", skillhost_guest_sdk::frontmatter::too_large(n))),
        other => ProviderError::Io(format!("{path}: {other}")),
    }
}

fn invalid(path: &str, finding: Finding) -> ProviderError {
    ProviderError::Invalid(format!("{path}: {finding}"))
}

impl Provider for LocalProvider {
    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        if config.roots.is_empty() {
            return Err(ProviderError::Invalid(
                "the local provider needs at least one root".to_string(),
            ));
        }
        let roots = config
            .roots
            .iter()
            .map(|r| r.trim_end_matches('/').to_string())
            .collect();
        Ok(LocalProvider {
            id: config.id,
            roots,
            preopens: Preopens::load(),
            scanner: Scanner::default(),
            last: None,
            watched: BTreeSet::new(),
        })
    }

    fn snapshot(&mut self) -> Observation {
        let result = self.rescan();
        Observation {
            skills: result.skills.iter().map(entry).collect(),
            diagnostics: diagnostics(result),
            complete: result.complete,
        }
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        let found = match self.current().find(name) {
            Some(d) => d.clone(),
            None => self
                .rescan()
                .find(name)
                .cloned()
                .ok_or_else(|| ProviderError::NotFound(format!("no skill named {name:?}")))?,
        };
        let (dir, rel) = self
            .preopens
            .resolve(&found.doc)
            .ok_or_else(|| ProviderError::NotFound(format!("{} is no longer granted", found.doc)))?;
        // C8: bodies are never cached; read the file as it is now.
        let bytes = match fs::read_at(dir, rel, 0, MAX_DOCUMENT_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                host::invalidate_provider();
                return Err(read_error(&found.doc, e));
            }
        };
        let doc = parse_document(&bytes, &found.default_name).map_err(|f| invalid(&found.doc, f))?;
        if doc.frontmatter.name != name {
            // C7: the file now declares another name; the catalog is stale.
            host::invalidate_provider();
            return Err(ProviderError::NameMismatch(format!(
                "{} now declares the name {:?}, not {name:?}",
                found.doc, doc.frontmatter.name
            )));
        }
        Ok(SkillDocument {
            entry: SkillEntry {
                frontmatter: to_wit_frontmatter(doc.frontmatter),
                path: found.doc.clone(),
                base: found.base.clone(),
            },
            body: doc.body.to_string(),
        })
    }

    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let found = self
            .current()
            .find(name)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(format!("no skill named {name:?}")))?;
        resources::list(&self.preopens, &found)
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let found = self
            .current()
            .find(name)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(format!("no skill named {name:?}")))?;
        resources::read(&self.preopens, &found, path)
    }

    fn on_change(&mut self, events: Vec<ChangeEvent>) {
        let forced = events.iter().any(|e| e.kind == ChangeKind::Rescan);
        self.react(events.into_iter().map(|e| e.path), forced);
    }

    fn observe(&mut self, paths: Vec<String>) {
        self.react(paths, false);
    }
}

skillhost_guest_sdk::export_provider!(LocalProvider);
