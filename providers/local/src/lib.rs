//! The local filesystem skill provider, as a component.
//!
//! It reads only the roots the host preopened for it, read-only. Bundle
//! (`<root>/<name>/SKILL.md`) and flat (`<root>/<name>.md`) layouts are
//! discovered; deeper files are never taken for skills. What it learned is
//! kept between calls: a snapshot re-examines only what the host said may
//! have changed (or stats everything on a rescan) and sends only what did
//! change. Bodies are never cached: each `load` reads the file.

// A scan makes and frees tens of thousands of small strings.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: skillhost_guest_sdk::alloc::SizeClasses =
    skillhost_guest_sdk::alloc::SizeClasses::system();

mod entry;
mod fs;
mod ledger;
mod names;
mod reads;
mod resources;
mod scan;

use fs::Failure;
use scan::Catalog;
use skillhost_guest_sdk::files;
use skillhost_guest_sdk::host::{self, LogLevel};
use skillhost_guest_sdk::skill::frontmatter::{Finding, MAX_DOCUMENT_BYTES, too_large};
use skillhost_guest_sdk::{
    ChangeEvent, ChangeKind, Manifest, Need, Observation, Provider, ProviderConfig, ProviderError,
    Resource, SkillDocument, SnapshotRequest, parse_skill,
};

/// What a skill is, as far as loading and resources are concerned.
#[derive(Debug, Clone)]
pub struct SkillRef {
    /// The document's guest path.
    pub doc: String,
    /// The base folder's guest path.
    pub base: String,
    /// Whether it is a flat skill.
    pub flat: bool,
    /// The name it gets when the frontmatter declares none.
    pub default_name: String,
    /// The name it declares, when it is served under its folder's because
    /// another skill holds that one (see `names`).
    pub declared: Option<String>,
}

/// The provider's state between calls.
pub struct LocalProvider {
    id: String,
    catalog: Catalog,
}

impl LocalProvider {
    /// Asks the host to watch every root not yet watched.
    fn sync_watches(&mut self) {
        let roots = self.catalog.unwatched_roots();
        if roots.is_empty() {
            return;
        }
        // Depth 2 reaches a skill's own subfolders (`references/`,
        // `scripts/`): no catalog depends on them, but whoever serves a
        // skill's files with their digests (`skillhost serve`) must hear
        // when one changes. Depth 2 is also the most the host grants.
        for refusal in host::watch(&roots, 2) {
            host::log(
                LogLevel::Warn,
                &format!(
                    "{}: watch {} refused: {}",
                    self.id, refusal.path, refusal.reason
                ),
            );
            self.catalog.watch_refused(&refusal.path);
        }
    }

    fn refresh(&mut self) {
        self.catalog.refresh(false);
        self.sync_watches();
    }

    /// Re-examines what `paths` may have affected and invalidates only when
    /// what the catalog shows (members, frontmatter, diagnostics,
    /// completeness) changed.
    fn react(&mut self, paths: impl IntoIterator<Item = String>, rescan: bool) {
        if !self.catalog.scanned() {
            // Nothing was observed yet: the first snapshot will see it all.
            return;
        }
        if rescan {
            self.catalog.suspect_all();
        }
        for path in paths {
            self.catalog.suspect_path(&path);
        }
        let before = self.catalog.epoch();
        self.refresh();
        if self.catalog.epoch() != before {
            host::invalidate_provider();
        }
    }

    fn skill(&mut self, name: &str) -> Result<SkillRef, ProviderError> {
        if !self.catalog.scanned() {
            self.refresh();
        }
        let entry = self
            .catalog
            .find(name)
            .ok_or_else(|| ProviderError::NotFound(format!("no skill named {name:?}")))?;
        Ok(SkillRef {
            doc: entry.doc.clone(),
            base: entry.base.clone(),
            flat: entry.flat,
            default_name: entry.default_name.clone(),
            declared: match &entry.state {
                entry::State::Skill(skill) => skill.declared.clone(),
                _ => None,
            },
        })
    }
}

/// Maps a read failure of `path` to the contract's error.
pub fn read_error(path: &str, e: Failure) -> ProviderError {
    match e {
        Failure::Missing => ProviderError::NotFound(format!("{path} does not exist")),
        Failure::TooLarge(n) => ProviderError::Invalid(format!("{path}: {}", too_large(n))),
        other => ProviderError::Io(format!("{path}: {other}")),
    }
}

/// Reads one file of at most `limit` bytes through the host's `files`.
pub fn read_one(path: &str, limit: u64) -> Result<Vec<u8>, Failure> {
    let result = files::read_files(&[path.to_string()], limit);
    match files::file(&result, 0) {
        Ok((bytes, _)) => Ok(bytes.to_vec()),
        Err(e) => Err(e.into()),
    }
}

fn invalid(path: &str, finding: Finding) -> ProviderError {
    ProviderError::Invalid(format!("{path}: {finding}"))
}

impl Provider for LocalProvider {
    fn manifest() -> Manifest {
        Manifest {
            summary: "Skills in folders on this machine: <root>/<name>/SKILL.md bundles and \
                      <root>/<name>.md files, read-only"
                .to_string(),
            roots: Need::Required,
            origins: Vec::new(),
            settings: Vec::new(),
        }
    }

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
            catalog: Catalog::new(roots),
        })
    }

    fn snapshot(&mut self, request: SnapshotRequest) -> Observation {
        if request.rescan {
            self.catalog.suspect_all();
        }
        // A host that does not hold the last observation gets everything:
        // what was sent before is read again (it is not kept here), and
        // each batch goes to the host as soon as it is parsed, so the
        // host checks it while the next one is read.
        let whole = self.catalog.wants_everything(request.known);
        if whole {
            self.catalog.reload_sent();
        }
        self.catalog.refresh(whole);
        self.sync_watches();
        self.catalog.observation(request.known)
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        let skill = self.skill(name)?;
        // Bodies are never cached: read the file as it is now.
        let bytes = match read_one(&skill.doc, MAX_DOCUMENT_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.catalog.suspect_document(&skill.doc);
                host::invalidate_provider();
                return Err(read_error(&skill.doc, e));
            }
        };
        let mut doc =
            parse_skill(&bytes, &skill.default_name).map_err(|f| invalid(&skill.doc, f))?;
        if skill.declared.as_ref() == Some(&doc.name) {
            // Still the name another skill holds: served as the catalog has it.
            doc.name = name.to_string();
        }
        if doc.name != name {
            // The file now declares another name: the catalog is stale.
            self.catalog.suspect_document(&skill.doc);
            host::invalidate_provider();
            return Err(ProviderError::NameMismatch(format!(
                "{} now declares the name {:?}, not {name:?}",
                skill.doc, doc.name
            )));
        }
        let body = doc.body.to_string();
        Ok(SkillDocument {
            entry: doc.entry(skill.doc, skill.base),
            body,
        })
    }

    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let skill = self.skill(name)?;
        resources::list(&skill)
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let skill = self.skill(name)?;
        resources::read(&skill, path)
    }

    fn read_resource_range(
        &mut self,
        name: &str,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, ProviderError> {
        let skill = self.skill(name)?;
        resources::read_range(&skill, path, offset, len)
    }

    fn on_change(&mut self, events: Vec<ChangeEvent>) {
        let rescan = events.iter().any(|e| e.kind == ChangeKind::Rescan);
        self.react(events.into_iter().map(|e| e.path), rescan);
    }

    fn observe(&mut self, paths: Vec<String>) {
        self.react(paths, false);
    }
}

skillhost_guest_sdk::export_provider!(LocalProvider);
