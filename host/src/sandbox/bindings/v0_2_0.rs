//! Bindings of `skillhost:provider@0.2.0` (`wit/v0.2.0`, frozen),
//! and their conversion into the host's model and the latest version's
//! imports.
//!
//! 0.2.0 differs from 0.3.0 in its frontmatter record: beside the raw YAML
//! and the provider's JSON it carries every field already normalised by the
//! provider, and the skill's name inside it. Those fields are kept as given
//! ([`contract::SkillEntry::given`]), so a 0.2.0 component serves exactly
//! what it served before.

use super::{given_frontmatter, latest, same_cases};
use crate::sandbox::contract;
use crate::sandbox::imports::files::FilesView;
use crate::sandbox::imports::host::HostView;

wasmtime::component::bindgen!({
    path: "../wit/v0.2.0",
    world: "skill-provider",
    // A flood of invalidations stops the provider: this import may trap.
    imports: { "skillhost:provider/host.invalidate-provider": trappable },
});

use self::skillhost::provider::files as old_files;
use self::skillhost::provider::host as old_host;
use self::skillhost::provider::types as old;
use latest::files as new_files;
use latest::imports as new_host;
use latest::types as new;

// Exports: what the host sends a 0.2.0 component.
impl From<&new::ProviderConfig> for old::ProviderConfig {
    fn from(c: &new::ProviderConfig) -> Self {
        old::ProviderConfig {
            id: c.id.clone(),
            roots: c.roots.clone(),
            settings: c.settings.clone(),
        }
    }
}

impl From<new::SnapshotRequest> for old::SnapshotRequest {
    fn from(r: new::SnapshotRequest) -> Self {
        old::SnapshotRequest {
            known: r.known,
            rescan: r.rescan,
        }
    }
}

same_cases!(new::ChangeKind => old::ChangeKind { Created, Modified, Removed, Rescan });

impl From<&new::ChangeEvent> for old::ChangeEvent {
    fn from(e: &new::ChangeEvent) -> Self {
        old::ChangeEvent {
            path: e.path.clone(),
            kind: e.kind.into(),
        }
    }
}

// Exports: what a 0.2.0 component answers.
same_cases!(old::Severity => new::Severity { Error, Warning });
same_cases!(old::Need => new::Need { None, Optional, Required });

impl From<old::Diagnostic> for new::Diagnostic {
    fn from(d: old::Diagnostic) -> Self {
        new::Diagnostic {
            severity: d.severity.into(),
            path: d.path,
            line: d.line,
            field: d.field,
            message: d.message,
        }
    }
}

impl From<old::SkillEntry> for contract::SkillEntry {
    fn from(mut e: old::SkillEntry) -> Self {
        let raw = std::mem::take(&mut e.frontmatter.raw);
        let json = std::mem::take(&mut e.frontmatter.json);
        let name = e.frontmatter.name.clone();
        // The verbatim text is the entry's; the boundary puts it back.
        let given = given_frontmatter!(e.frontmatter, old::InvocationContext);
        contract::SkillEntry {
            name,
            raw,
            json,
            path: e.path,
            base: e.base,
            given: Some(Box::new(given)),
        }
    }
}

impl From<old::Observation> for contract::Observation {
    fn from(o: old::Observation) -> Self {
        contract::Observation {
            epoch: o.epoch,
            base: o.base,
            skills: o.skills.into_iter().map(Into::into).collect(),
            removed: o.removed,
            diagnostics: o.diagnostics.into_iter().map(Into::into).collect(),
            complete: o.complete,
        }
    }
}

impl From<old::SkillDocument> for contract::SkillDocument {
    fn from(d: old::SkillDocument) -> Self {
        contract::SkillDocument {
            entry: d.entry.into(),
            body: d.body,
        }
    }
}

impl From<old::Resource> for new::Resource {
    fn from(r: old::Resource) -> Self {
        new::Resource {
            path: r.path,
            size: r.size,
            digest: r.digest,
        }
    }
}

impl From<old::ProviderError> for new::ProviderError {
    fn from(e: old::ProviderError) -> Self {
        match e {
            old::ProviderError::NotFound(m) => new::ProviderError::NotFound(m),
            old::ProviderError::NameMismatch(m) => new::ProviderError::NameMismatch(m),
            old::ProviderError::Invalid(m) => new::ProviderError::Invalid(m),
            old::ProviderError::Io(m) => new::ProviderError::Io(m),
            old::ProviderError::Unsupported(m) => new::ProviderError::Unsupported(m),
        }
    }
}

impl From<old::ProviderManifest> for new::ProviderManifest {
    fn from(m: old::ProviderManifest) -> Self {
        new::ProviderManifest {
            summary: m.summary,
            roots: m.roots.into(),
            origins: m.origins,
            settings: m
                .settings
                .into_iter()
                .map(|s| new::SettingSpec {
                    key: s.key,
                    required: s.required,
                    description: s.description,
                })
                .collect(),
        }
    }
}

// Imports: a 0.2.0 component's calls, answered by the one implementation.
same_cases!(old_host::LogLevel => new_host::LogLevel { Trace, Debug, Info, Warn, Error });
same_cases!(new_files::EntryKind => old_files::EntryKind { File, Directory, Symlink, Other });

fn stamp(s: new_files::Stamp) -> old_files::Stamp {
    old_files::Stamp {
        size: s.size,
        modified_ns: s.modified_ns,
    }
}

fn fs_error(e: new_files::FsError) -> old_files::FsError {
    match e {
        new_files::FsError::NotFound => old_files::FsError::NotFound,
        new_files::FsError::TooLarge(size) => old_files::FsError::TooLarge(size),
        new_files::FsError::Denied(m) => old_files::FsError::Denied(m),
        new_files::FsError::Transient(m) => old_files::FsError::Transient(m),
    }
}

fn read_result(read: new_files::ReadResult) -> old_files::ReadResult {
    old_files::ReadResult {
        data: read.data,
        files: read
            .files
            .into_iter()
            .map(|f| {
                f.map(|s| old_files::FileSlice {
                    offset: s.offset,
                    len: s.len,
                    stamp: stamp(s.stamp),
                })
                .map_err(fs_error)
            })
            .collect(),
    }
}

impl old::Host for HostView<'_> {}

impl old_host::Host for HostView<'_> {
    fn invalidate_provider(&mut self) -> wasmtime::Result<()> {
        new_host::Host::invalidate_provider(self)
    }

    fn log(&mut self, level: old_host::LogLevel, message: String) {
        new_host::Host::log(self, level.into(), message)
    }

    fn watch(&mut self, paths: Vec<String>, depth: u32) -> Vec<old_host::WatchRefusal> {
        new_host::Host::watch(self, paths, depth)
            .into_iter()
            .map(|r| old_host::WatchRefusal {
                path: r.path,
                reason: r.reason,
            })
            .collect()
    }

    fn unwatch(&mut self, paths: Vec<String>) {
        new_host::Host::unwatch(self, paths)
    }

    fn emit_skills(&mut self, entries: Vec<old::SkillEntry>) {
        self.emit(entries.into_iter().map(Into::into).collect())
    }
}

impl old_files::Host for FilesView<'_> {
    fn list_dir(&mut self, path: String) -> Result<Vec<old_files::DirEntry>, old_files::FsError> {
        new_files::Host::list_dir(self, path)
            .map(|entries| {
                entries
                    .into_iter()
                    .map(|e| old_files::DirEntry {
                        name: e.name,
                        kind: e.kind.into(),
                    })
                    .collect()
            })
            .map_err(fs_error)
    }

    fn read_files(&mut self, paths: Vec<String>, max_bytes: u64) -> old_files::ReadResult {
        read_result(new_files::Host::read_files(self, paths, max_bytes))
    }

    fn prefetch(&mut self, paths: Vec<String>, max_bytes: u64) {
        new_files::Host::prefetch(self, paths, max_bytes)
    }

    fn stat_paths(
        &mut self,
        paths: Vec<String>,
    ) -> Vec<Result<old_files::FileInfo, old_files::FsError>> {
        new_files::Host::stat_paths(self, paths)
            .into_iter()
            .map(|r| {
                r.map(|i| old_files::FileInfo {
                    kind: i.kind.into(),
                    stamp: stamp(i.stamp),
                })
                .map_err(fs_error)
            })
            .collect()
    }

    fn read_frontmatters(&mut self, paths: Vec<String>, max_bytes: u64) -> old_files::ReadResult {
        read_result(new_files::Host::read_frontmatters(self, paths, max_bytes))
    }

    fn read_range(
        &mut self,
        path: String,
        offset: u64,
        len: u64,
    ) -> Result<(Vec<u8>, old_files::Stamp), old_files::FsError> {
        new_files::Host::read_range(self, path, offset, len)
            .map(|(bytes, s)| (bytes, stamp(s)))
            .map_err(fs_error)
    }
}
