//! `skillhost.toml`: which providers run, and what each is granted.
//! Nothing is granted that the file does not grant.
//!
//! ```toml
//! [[provider]]
//! builtin = "local"                 # a first-party provider...
//! roots = [".agents/skills", "~/.claude/skills"]
//!
//! [[provider]]
//! id = "team"
//! wasm = "providers/team.wasm"      # ...or a third party's component
//! sha256 = "9f2c…"                  # refused if the file changes
//! # oci = "oci://ghcr.io/acme/team:1@sha256:…"   # written by `skillhost add`
//! roots = ["/srv/team-skills"]
//! memory_mib = 32
//! deadline_ms = 2000
//! max_skills = 500
//! settings = { channel = "stable" }
//!
//! [[provider]]
//! builtin = "remote"                # a static SEP-2640 mirror over HTTP
//! url = "https://skills.example.com/team/"
//! label = "team"                    # skills appear as team:<name> (default: the URL's host)
//! poll_seconds = 60                 # how often the index is checked while watching
//! # origins = [...]                 # default: the URL's origin, nothing else
//!
//! [[provider]]
//! builtin = "remote"
//! transport = "mcp"                 # an MCP server with the Skills Extension
//! url = "https://skills.example.com/mcp"
//! label = "hosted"
//! ```
//!
//! The bundled skills come last unless the file says `bundled = false` at
//! the top (or places `builtin = "bundled"` itself).
//!
//! Relative paths are relative to the file's folder; `~` is the home folder.
//! Unknown keys and bad values are errors naming the key and its line.

mod parse;
pub mod trust;

use crate::error::Error;
use crate::model::{Diagnostic, Scope};
use crate::provider::sources::builtin;
use crate::provider::sources::remote::RemoteSource;
use crate::provider::{Caps, ProviderSpec};
use crate::registry::Registry;
use crate::sandbox::Limits;
use crate::{Runtime, Sources};
use std::path::{Path, PathBuf};

/// The file looked for in the current folder when `--config` is not given.
pub const FILE_NAME: &str = "skillhost.toml";

/// Which component a provider runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The embedded local filesystem provider.
    Local,
    /// The embedded bundled skills.
    Bundled,
    /// The embedded remote provider, for this mirror.
    Remote(Box<RemoteSource>),
    /// A component file.
    Wasm(PathBuf),
}

/// One configured provider, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// Its id (given, or derived from its component and first root).
    pub id: String,
    /// Its component.
    pub source: Source,
    /// The SHA-256 (hex) its component must have, if pinned.
    pub sha256: Option<String>,
    /// The registry reference it was added from (`oci://…@sha256:…`),
    /// which `skillhost update` follows; it runs from its `wasm` file.
    pub oci: Option<String>,
    /// Roots granted read-only, as absolute paths.
    pub roots: Vec<PathBuf>,
    /// HTTP origins granted (`scheme://host:port`).
    pub origins: Vec<String>,
    /// Its scope.
    pub scope: Scope,
    /// Memory and time limits.
    pub limits: Limits,
    /// Caps on what it may return.
    pub caps: Caps,
    /// Settings passed to its `init`.
    pub settings: Vec<(String, String)>,
    /// The line of its `[[provider]]` header, for messages.
    pub line: usize,
}

/// Largest configuration file read, in bytes.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A parsed configuration file.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file it came from.
    pub path: PathBuf,
    /// `sha256:<hex>` of its text: trusting a file trusts these bytes.
    pub digest: String,
    /// Its providers, highest precedence first.
    pub providers: Vec<ProviderConfig>,
    /// Whether the bundled skills are added last (they are unless the file
    /// says `bundled = false` or places them itself).
    pub bundled: bool,
    /// The model's listing budget in characters, when `[listing]` sets one
    /// (`budget`, or `context-tokens` sized as the default is).
    pub listing_budget: Option<usize>,
}

impl Config {
    /// The file named by `--config`, or `skillhost.toml` in `cwd` if there
    /// is one.
    pub fn find(explicit: Option<&Path>, cwd: &Path) -> Result<Option<Config>, Error> {
        match explicit {
            Some(path) => Config::load(path).map(Some),
            None => {
                let path = cwd.join(FILE_NAME);
                if path.is_file() {
                    Config::load(&path).map(Some)
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Reads and validates a configuration file (a FIFO or anything but a
    /// regular file planted in its place is refused, never waited on).
    /// Relative paths resolve against the folder of the file itself, links
    /// followed: a `skillhost.toml` that is a link to a trusted file must
    /// not lend that trust to the folder holding the link (its `wasm` and
    /// `roots` would be the link folder's otherwise).
    pub fn load(path: &Path) -> Result<Config, Error> {
        let io = |error| Error::Io {
            path: path.to_path_buf(),
            error,
        };
        let bytes = crate::paths::read_regular(path, MAX_CONFIG_BYTES).map_err(io)?;
        let text = String::from_utf8(bytes)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        Config::parse(&text, path, &folder_of(path))
    }

    /// The digest a file's bytes would be trusted under, read without
    /// parsing it (an untrusted file is parsed only to say what it asks).
    pub fn digest_of(path: &Path) -> Result<String, Error> {
        let bytes =
            crate::paths::read_regular(path, MAX_CONFIG_BYTES).map_err(|error| Error::Io {
                path: path.to_path_buf(),
                error,
            })?;
        Ok(skillhost_skill::digest::sha256(&bytes))
    }

    /// Parses `text` (read from `path`; relative paths against `base`).
    pub fn parse(text: &str, path: &Path, base: &Path) -> Result<Config, Error> {
        parse::parse(text, path, base)
    }

    /// What the file would grant, in words, for a user deciding whether to
    /// trust it: components it runs, folders outside its own it reads,
    /// origins it reaches, remote sources, limits it raises.
    /// Every string in it comes from the file, so each is shown escaped
    /// ([`crate::text::escaped`]): a root or URL holding terminal escapes
    /// cannot rewrite the prompt around it. A root that is a link is named
    /// with where it leads.
    pub fn asks(&self) -> Vec<String> {
        use crate::text::escaped;
        let folder = folder_of(&self.path);
        let defaults = Limits::default();
        let caps = Caps::default();
        let mut asks = Vec::new();
        for p in &self.providers {
            match &p.source {
                Source::Wasm(file) => asks.push(format!(
                    "runs the component {}",
                    escaped(&file.display().to_string())
                )),
                Source::Remote(remote) => {
                    asks.push(format!("fetches skills from {}", escaped(&remote.url)))
                }
                Source::Local | Source::Bundled => {}
            }
            for root in &p.roots {
                let shown = escaped(&root.display().to_string());
                // Where the root really leads, links followed (a root that
                // does not exist yet leads where its path says).
                let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                if real != *root {
                    if !real.starts_with(&folder) {
                        asks.push(format!(
                            "reads {shown}, a link to {} (outside its folder)",
                            escaped(&real.display().to_string())
                        ));
                    }
                } else if !root.starts_with(&folder) {
                    asks.push(format!("reads {shown} (outside its folder)"));
                }
            }
            for origin in &p.origins {
                asks.push(format!("reaches {}", escaped(origin)));
            }
            if p.limits.memory_bytes > defaults.memory_bytes {
                asks.push(format!(
                    "{}: memory up to {} MiB",
                    escaped(&p.id),
                    p.limits.memory_bytes >> 20
                ));
            }
            if p.limits.deadline > defaults.deadline && !matches!(p.source, Source::Remote(_)) {
                asks.push(format!(
                    "{}: calls of up to {} ms",
                    escaped(&p.id),
                    p.limits.deadline.as_millis()
                ));
            }
            if p.caps.max_skills > caps.max_skills
                || p.caps.max_text > caps.max_text
                || p.caps.max_body > caps.max_body
            {
                asks.push(format!(
                    "{}: larger caps on what it returns",
                    escaped(&p.id)
                ));
            }
        }
        asks
    }

    /// The folder relative paths of the file at `path` resolve against.
    pub fn folder(&self) -> PathBuf {
        folder_of(&self.path)
    }

    /// A registry running the configured providers. One that cannot start
    /// (a missing file, a pinned digest that no longer matches, a file that
    /// is not a provider) is left out with an error diagnostic naming it;
    /// the others run.
    pub fn registry(&self, runtime: &Runtime) -> Result<Registry, Error> {
        self.registry_with(
            runtime,
            &Sources {
                bundled: true,
                ..Sources::default()
            },
        )
    }

    /// [`Config::registry`], then the roots and remotes of `also` (what the
    /// command line adds). The bundled skills come last when both the file
    /// and `also` want them; `also.bundled == false` leaves them out even
    /// where the file places them itself.
    pub fn registry_with(&self, runtime: &Runtime, also: &Sources) -> Result<Registry, Error> {
        let registry = Registry::new();
        for provider in &self.providers {
            if !also.bundled && matches!(provider.source, Source::Bundled) {
                continue;
            }
            let at = format!("{}:{}", self.path.display(), provider.line);
            match self
                .spec(runtime, provider)
                .and_then(|spec| registry.add(runtime.provider(spec)))
            {
                Ok(()) => {}
                Err(e) => registry.report(
                    Diagnostic::error(at, format!("provider {} not started: {e}", provider.id))
                        .from_source(&provider.id),
                ),
            }
        }
        runtime.add_sources(
            &registry,
            &Sources {
                bundled: self.bundled && also.bundled,
                ..also.clone()
            },
        )?;
        Ok(registry)
    }

    fn spec(&self, runtime: &Runtime, provider: &ProviderConfig) -> Result<ProviderSpec, Error> {
        let bytes: std::borrow::Cow<'static, [u8]> = match &provider.source {
            Source::Local => builtin::LOCAL_PROVIDER.into(),
            Source::Bundled => builtin::BUNDLED_PROVIDER.into(),
            Source::Remote(_) => builtin::REMOTE_PROVIDER.into(),
            Source::Wasm(file) => crate::sandbox::read_component_file(file)
                .map_err(|error| Error::Io {
                    path: file.clone(),
                    error,
                })?
                .into(),
        };
        if let Some(pin) = &provider.sha256 {
            let actual = skillhost_skill::digest::sha256_hex(&bytes);
            if &actual != pin {
                return Err(Error::Component(format!(
                    "its component's SHA-256 is {actual}, but the configuration pins {pin}; \
                     update the pin if the change is expected"
                )));
            }
        }
        let mut spec = match &provider.source {
            Source::Local => ProviderSpec {
                roots: provider.roots.clone(),
                ..ProviderSpec::new(&provider.id, provider.scope, runtime.local_component()?)
            },
            Source::Wasm(_) => ProviderSpec {
                roots: provider.roots.clone(),
                ..ProviderSpec::new(
                    &provider.id,
                    provider.scope,
                    runtime.load_component(&bytes)?,
                )
            },
            Source::Bundled => runtime.bundled_spec()?,
            Source::Remote(remote) => runtime.remote_spec(remote)?,
        };
        // What the file says wins over the first-party defaults.
        spec.id = provider.id.clone();
        spec.scope = provider.scope;
        spec.origins = provider.origins.clone();
        spec.settings.extend(provider.settings.iter().cloned());
        spec.limits = provider.limits;
        spec.caps = provider.caps;
        Ok(spec)
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;

/// The real folder of the file at `path`: its canonical parent when it can
/// be resolved, else the folder its path names.
fn folder_of(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .ok()
        .and_then(|real| real.parent().map(Path::to_path_buf))
        .or_else(|| path.parent().map(crate::paths::absolute))
        .unwrap_or_else(|| PathBuf::from("."))
}
