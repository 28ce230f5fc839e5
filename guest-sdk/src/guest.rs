//! The guest side of the WIT contract: bindings, the `Provider` trait and the
//! export macro.

/// Bindings generated from `wit/v0.3.0` (the repository's top-level `wit/`, linked here so the package holds it) (`skillhost:provider@0.3.0`).
/// `wit/v0.1.0` and `wit/v0.2.0` stay beside it, frozen, for components
/// built before.
#[allow(missing_docs, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit/v0.3.0",
        world: "skill-provider",
        pub_export_macro: true,
        export_macro_name: "__export_skill_provider_world",
        default_bindings_module: "::skillhost_guest_sdk::bindings",
        additional_derives: [PartialEq],
    });
}

pub use bindings::skillhost::provider::types::{
    ChangeEvent, ChangeKind, Diagnostic, Frontmatter as WitFrontmatter, Need, Observation,
    ProviderConfig, ProviderError, ProviderManifest as Manifest, Resource, SettingSpec, Severity,
    SkillDocument, SkillEntry, SnapshotRequest,
};

/// Bulk, read-only access to the provider's granted folders.
pub mod files {
    pub use super::bindings::skillhost::provider::files::{
        DirEntry, EntryKind, FileInfo, FileSlice, FsError, ReadResult, Stamp, list_dir, prefetch,
        read_files, read_frontmatters, read_range, stat_paths,
    };

    /// One file of a [`ReadResult`]: its bytes, or why it could not be read.
    pub fn file(result: &ReadResult, index: usize) -> Result<(&[u8], Stamp), FsError> {
        let slice = match result.files.get(index) {
            Some(Ok(slice)) => slice,
            Some(Err(e)) => return Err(e.clone()),
            None => {
                return Err(FsError::Transient(
                    "the host returned fewer answers than paths".to_string(),
                ));
            }
        };
        let start = usize::try_from(slice.offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(slice.len).unwrap_or(usize::MAX));
        result
            .data
            .get(start..end)
            .map(|bytes| (bytes, slice.stamp))
            .ok_or_else(|| {
                FsError::Transient("the host returned a slice outside its data".to_string())
            })
    }
}

/// The host's functions, callable from any provider export
/// (`emit-skills` only from `snapshot`: see its documentation in the WIT).
pub mod host {
    pub use super::bindings::skillhost::provider::host::{
        LogLevel, WatchRefusal, emit_skills, invalidate_provider, log, unwatch, watch,
    };
}

use crate::skill::frontmatter::{Finding, Head, read_document};

/// What a skill provider implements. One value lives for the lifetime of the
/// component instance, so it can keep state (parsed entries, ETags) between
/// calls. Only `init`, `snapshot` and `load` are required.
pub trait Provider: Sized + 'static {
    /// What the provider wants granted, shown to whoever grants it before
    /// anything is. Called without `init`, on an instance granted nothing:
    /// it must not depend on configuration. The default declares only that
    /// it may read granted roots ([`default_manifest`]).
    fn manifest() -> Manifest {
        default_manifest()
    }

    /// Builds the provider from the host's configuration.
    fn init(config: ProviderConfig) -> Result<Self, ProviderError>;

    /// Lists the skills the provider sees now. A provider that does not
    /// track changes returns [`full_observation`] every time.
    fn snapshot(&mut self, request: SnapshotRequest) -> Observation;

    /// Reads a skill again from its source and returns it with its body.
    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError>;

    /// Lists every file of a skill with its size and digest.
    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        Err(ProviderError::Unsupported(format!(
            "list-resources of {name:?}: this provider does not list resources"
        )))
    }

    /// Reads one file of a skill, relative to its base folder.
    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        Err(ProviderError::Unsupported(format!(
            "read-resource {path:?} of {name:?}: this provider does not serve resources"
        )))
    }

    /// Reads at most `len` bytes of one file of a skill from `offset`. The
    /// default reads the whole file with [`Provider::read_resource`] and
    /// cuts the range from it; a provider that can seek should override it.
    fn read_resource_range(
        &mut self,
        name: &str,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, ProviderError> {
        let bytes = self.read_resource(name, path)?;
        Ok(bytes[crate::skill::reads::range_within(bytes.len(), offset, len)].to_vec())
    }

    /// Reacts to changes the host saw. The default assumes any change may
    /// alter the catalog.
    fn on_change(&mut self, events: Vec<ChangeEvent>) {
        if !events.is_empty() {
            host::invalidate_provider();
        }
    }

    /// Reacts to the agent's own writes. The default assumes any write may
    /// alter the catalog.
    fn observe(&mut self, paths: Vec<String>) {
        if !paths.is_empty() {
            host::invalidate_provider();
        }
    }
}

/// The manifest of a provider that declares nothing of its own: no
/// summary, roots read if granted, no origins, no settings.
pub fn default_manifest() -> Manifest {
    Manifest {
        summary: String::new(),
        roots: Need::Optional,
        origins: Vec::new(),
        settings: Vec::new(),
    }
}

/// A complete (non-incremental) observation.
pub fn full_observation(
    skills: Vec<SkillEntry>,
    diagnostics: Vec<Diagnostic>,
    complete: bool,
) -> Observation {
    Observation {
        epoch: 0,
        base: None,
        skills,
        removed: Vec::new(),
        diagnostics,
        complete,
    }
}

/// The value of setting `key` in the host's configuration, if it was given.
pub fn setting<'a>(config: &'a ProviderConfig, key: &str) -> Option<&'a str> {
    config
        .settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A skill document parsed for the contract.
#[derive(Debug, Clone)]
pub struct ParsedSkill<'a> {
    /// The name it is served under: its frontmatter's, or the default.
    pub name: String,
    /// Its frontmatter, verbatim and as the JSON of this parse.
    pub frontmatter: WitFrontmatter,
    /// The Markdown after the closing `---` (the whole text when there is
    /// no frontmatter).
    pub body: &'a str,
}

impl ParsedSkill<'_> {
    /// The catalog entry of this document at `path`, whose relative paths
    /// resolve against `base`.
    pub fn entry(self, path: impl Into<String>, base: impl Into<String>) -> SkillEntry {
        SkillEntry {
            name: self.name,
            frontmatter: self.frontmatter,
            path: path.into(),
            base: base.into(),
        }
    }
}

/// Parses a skill document once, with the shared parser, into what the
/// contract carries: its name, its verbatim frontmatter and the JSON of the
/// parse. `default_name` names a skill whose frontmatter gives no name (its
/// folder, or a flat file's stem). The host derives every other field from
/// the JSON with the same rules, and warns about values of the wrong shape
/// itself; what fails here (broken YAML, an unsafe name, a file over the
/// size limit) is the provider's to report.
pub fn parse_skill<'a>(bytes: &'a [u8], default_name: &str) -> Result<ParsedSkill<'a>, Finding> {
    let Head {
        raw,
        json,
        name,
        body,
        ..
    } = read_document(bytes, default_name)?;
    Ok(ParsedSkill {
        name,
        frontmatter: WitFrontmatter {
            raw: raw.to_string(),
            json,
        },
        body,
    })
}

/// The frontmatter record of verbatim YAML `raw` (the text between the
/// `---` lines), parsed here with the shared parser; an error says why the
/// YAML is refused.
pub fn frontmatter_of(raw: &str) -> Result<WitFrontmatter, Finding> {
    let fields = crate::skill::yaml::parse_fields(raw)?;
    Ok(WitFrontmatter {
        raw: raw.to_string(),
        json: crate::skill::json::fields_json_text(&fields),
    })
}

/// Turns a parser finding about `path` into a WIT diagnostic.
pub fn to_wit_diagnostic(path: &str, severity: Severity, finding: Finding) -> Diagnostic {
    Diagnostic {
        severity,
        path: path.to_string(),
        line: finding.line,
        field: finding.field,
        message: finding.message,
    }
}

#[doc(hidden)]
pub mod __private {
    pub use crate::bindings::exports::skillhost::provider::provider::Guest;
    use crate::skill::frontmatter::Finding;
    use crate::{Observation, ProviderError, Severity, full_observation, to_wit_diagnostic};

    /// What a call before `init` gets.
    pub fn not_initialised() -> ProviderError {
        ProviderError::Invalid("the provider was called before init".to_string())
    }

    /// The observation returned when `snapshot` is called before `init`.
    pub fn uninitialised_observation() -> Observation {
        let diagnostic = to_wit_diagnostic(
            "",
            Severity::Error,
            Finding {
                line: None,
                field: None,
                message: "the provider was called before init".to_string(),
            },
        );
        full_observation(Vec::new(), vec![diagnostic], false)
    }
}

/// Exports a [`Provider`] implementation as the component's `provider`
/// interface. Use it once, at the crate root of a `cdylib` built for
/// `wasm32-wasip2`.
#[macro_export]
macro_rules! export_provider {
    ($provider:ty) => {
        // Exports exist only in the component; a native build of the same
        // crate (for its unit tests) has none to link.
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::Provider as _;
            use ::std::cell::RefCell;

            ::std::thread_local! {
                static INSTANCE: RefCell<Option<$provider>> = const { RefCell::new(None) };
            }

            fn with<R>(
                missing: impl FnOnce() -> R,
                f: impl FnOnce(&mut $provider) -> R,
            ) -> R {
                INSTANCE.with(|cell| match cell.borrow_mut().as_mut() {
                    Some(p) => f(p),
                    None => missing(),
                })
            }

            struct Adapter;

            impl $crate::__private::Guest for Adapter {
                fn manifest() -> $crate::Manifest {
                    <$provider as $crate::Provider>::manifest()
                }
                fn init(config: $crate::ProviderConfig) -> Result<(), $crate::ProviderError> {
                    let provider = <$provider as $crate::Provider>::init(config)?;
                    INSTANCE.with(|cell| *cell.borrow_mut() = Some(provider));
                    Ok(())
                }
                fn snapshot(request: $crate::SnapshotRequest) -> $crate::Observation {
                    with($crate::__private::uninitialised_observation, |p| p.snapshot(request))
                }
                fn load(name: String) -> Result<$crate::SkillDocument, $crate::ProviderError> {
                    with(|| Err($crate::__private::not_initialised()), |p| p.load(&name))
                }
                fn list_resources(
                    name: String,
                ) -> Result<Vec<$crate::Resource>, $crate::ProviderError> {
                    with(|| Err($crate::__private::not_initialised()), |p| {
                        p.list_resources(&name)
                    })
                }
                fn read_resource(
                    name: String,
                    path: String,
                ) -> Result<Vec<u8>, $crate::ProviderError> {
                    with(|| Err($crate::__private::not_initialised()), |p| {
                        p.read_resource(&name, &path)
                    })
                }
                fn read_resource_range(
                    name: String,
                    path: String,
                    offset: u64,
                    len: u64,
                ) -> Result<Vec<u8>, $crate::ProviderError> {
                    with(|| Err($crate::__private::not_initialised()), |p| {
                        p.read_resource_range(&name, &path, offset, len)
                    })
                }
                fn on_change(events: Vec<$crate::ChangeEvent>) {
                    with(|| (), |p| p.on_change(events))
                }
                fn observe(paths: Vec<String>) {
                    with(|| (), |p| p.observe(paths))
                }
            }

            $crate::bindings::__export_skill_provider_world!(Adapter with_types_in $crate::bindings);
        };
    };
}
