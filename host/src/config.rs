//! `skillhost.toml`: which providers run, and what each is granted (SPEC
//! I2). Nothing is granted that the file does not grant.
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
//! ```
//!
//! The bundled skills come last unless the file says `bundled = false` at
//! the top (or places `builtin = "bundled"` itself).
//!
//! Relative paths are relative to the file's folder; `~` is the home folder.
//! Unknown keys and bad values are errors naming the key and its line.

use crate::boundary::Caps;
use crate::error::Error;
use crate::model::{Diagnostic, Scope};
use crate::provider::ProviderSpec;
use crate::registry::Registry;
use crate::remote::RemoteSource;
use crate::sandbox::Limits;
use crate::{Runtime, builtin};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The file looked for in the current folder when `--config` is not given.
pub const FILE_NAME: &str = "skillhost.toml";

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    bundled: Option<bool>,
    #[serde(default)]
    provider: Vec<Spanned<ProviderTable>>,
}

/// One `[[provider]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProviderTable {
    id: Option<Spanned<String>>,
    builtin: Option<Spanned<String>>,
    wasm: Option<Spanned<String>>,
    sha256: Option<Spanned<String>>,
    #[serde(default)]
    roots: Vec<Spanned<String>>,
    #[serde(default)]
    origins: Vec<Spanned<String>>,
    scope: Option<Spanned<String>>,
    memory_mib: Option<Spanned<u64>>,
    deadline_ms: Option<Spanned<u64>>,
    max_skills: Option<Spanned<u64>>,
    max_text: Option<Spanned<u64>>,
    max_body: Option<Spanned<u64>>,
    #[serde(default)]
    settings: BTreeMap<String, String>,
    url: Option<Spanned<String>>,
    label: Option<Spanned<String>>,
    poll_seconds: Option<Spanned<u64>>,
    max_index_bytes: Option<Spanned<u64>>,
}

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

/// A parsed configuration file.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file it came from.
    pub path: PathBuf,
    /// Its providers, highest precedence first.
    pub providers: Vec<ProviderConfig>,
    /// Whether the bundled skills are added last (they are unless the file
    /// says `bundled = false` or places them itself).
    pub bundled: bool,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
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

    /// Reads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Config::parse(&text, path, &base)
    }

    /// Parses `text` (read from `path`; relative paths against `base`).
    pub fn parse(text: &str, path: &Path, base: &Path) -> Result<Config, Error> {
        let invalid = |line: usize, key: &str, message: String| Error::Config {
            path: path.to_path_buf(),
            line,
            key: key.to_string(),
            message,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            let message = e.message().to_string();
            let key = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split('`').next())
                .unwrap_or("")
                .to_string();
            invalid(line, &key, message)
        })?;
        let home = std::env::home_dir();
        let resolve = |value: &str| -> PathBuf {
            let expanded = match (value.strip_prefix("~/"), &home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ if value == "~" => home.clone().unwrap_or_default(),
                _ => PathBuf::from(value),
            };
            crate::capabilities::absolute(&if expanded.is_absolute() {
                expanded
            } else {
                base.join(expanded)
            })
        };
        let mut providers = Vec::new();
        let mut ids = BTreeMap::new();
        for table in &file.provider {
            let header = line_of(text, table.span().start);
            let t = table.get_ref();
            let at = |s: std::ops::Range<usize>| line_of(text, s.start);
            let source = match (&t.builtin, &t.wasm) {
                (Some(b), None) => match b.get_ref().as_str() {
                    "local" => Source::Local,
                    "bundled" => Source::Bundled,
                    "remote" => {
                        let url = t.url.as_ref().ok_or_else(|| {
                            invalid(
                                header,
                                "url",
                                "a remote provider needs url = \"https://…\"".into(),
                            )
                        })?;
                        let mut remote = RemoteSource::new(url.get_ref())
                            .map_err(|e| invalid(at(url.span()), "url", e.to_string()))?;
                        if let Some(label) = &t.label {
                            remote = remote
                                .labelled(label.get_ref())
                                .map_err(|e| invalid(at(label.span()), "label", e.to_string()))?;
                        }
                        if let Some(seconds) = &t.poll_seconds {
                            if *seconds.get_ref() == 0 {
                                return Err(invalid(
                                    at(seconds.span()),
                                    "poll_seconds",
                                    "must be greater than 0".into(),
                                ));
                            }
                            remote.poll = Duration::from_secs(*seconds.get_ref());
                        }
                        remote.max_index_bytes = t.max_index_bytes.as_ref().map(|m| *m.get_ref());
                        Source::Remote(Box::new(remote))
                    }
                    other => {
                        return Err(invalid(
                            at(b.span()),
                            "builtin",
                            format!(
                                "unknown builtin {other:?}; expected \"local\", \"bundled\" or \"remote\""
                            ),
                        ));
                    }
                },
                (None, Some(w)) => Source::Wasm(resolve(w.get_ref())),
                (Some(b), Some(_)) => {
                    return Err(invalid(
                        at(b.span()),
                        "builtin",
                        "give builtin or wasm, not both".into(),
                    ));
                }
                (None, None) => {
                    return Err(invalid(
                        header,
                        "builtin",
                        "a provider needs builtin = \"local\" or wasm = \"file.wasm\"".into(),
                    ));
                }
            };
            if !matches!(source, Source::Remote(_)) {
                let remote_only = [
                    ("url", t.url.as_ref().map(Spanned::span)),
                    ("label", t.label.as_ref().map(Spanned::span)),
                    ("poll_seconds", t.poll_seconds.as_ref().map(Spanned::span)),
                    (
                        "max_index_bytes",
                        t.max_index_bytes.as_ref().map(Spanned::span),
                    ),
                ];
                if let Some((key, Some(span))) = remote_only.into_iter().find(|(_, s)| s.is_some())
                {
                    return Err(invalid(
                        at(span),
                        key,
                        "only a remote provider (builtin = \"remote\") takes this key".into(),
                    ));
                }
            }
            if matches!(source, Source::Bundled | Source::Remote(_)) && !t.roots.is_empty() {
                return Err(invalid(
                    at(t.roots[0].span()),
                    "roots",
                    "bundled and remote providers read no files; remove roots".into(),
                ));
            }
            if let Some(pin) = &t.sha256 {
                let hex = pin
                    .get_ref()
                    .strip_prefix("sha256:")
                    .unwrap_or(pin.get_ref());
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(invalid(
                        at(pin.span()),
                        "sha256",
                        "must be 64 hexadecimal digits".into(),
                    ));
                }
            }
            let roots: Vec<PathBuf> = t.roots.iter().map(|r| resolve(r.get_ref())).collect();
            for origin in &t.origins {
                check_origin(origin.get_ref())
                    .map_err(|m| invalid(at(origin.span()), "origins", m))?;
            }
            let positive =
                |value: &Option<Spanned<u64>>, key: &str| -> Result<Option<u64>, Error> {
                    match value {
                        Some(v) if *v.get_ref() == 0 => {
                            Err(invalid(at(v.span()), key, "must be greater than 0".into()))
                        }
                        Some(v) => Ok(Some(*v.get_ref())),
                        None => Ok(None),
                    }
                };
            let mut limits = match &source {
                Source::Remote(_) => crate::remote::default_limits(),
                _ => Limits::default(),
            };
            if let Some(mib) = positive(&t.memory_mib, "memory_mib")? {
                if mib > 4096 {
                    let span = t.memory_mib.as_ref().map_or(0..0, |v| v.span());
                    return Err(invalid(
                        at(span),
                        "memory_mib",
                        "at most 4096 (a 32-bit memory)".into(),
                    ));
                }
                limits.memory_bytes = (mib * 1024 * 1024) as usize;
            }
            if let Some(ms) = positive(&t.deadline_ms, "deadline_ms")? {
                limits.deadline = Duration::from_millis(ms);
            }
            let mut caps = Caps::default();
            if let Some(n) = positive(&t.max_skills, "max_skills")? {
                caps.max_skills = n as usize;
            }
            if let Some(n) = positive(&t.max_text, "max_text")? {
                caps.max_text = n as usize;
            }
            if let Some(n) = positive(&t.max_body, "max_body")? {
                caps.max_body = n as usize;
            }
            let scope = match t.scope.as_ref().map(|s| (s.get_ref().as_str(), s.span())) {
                None if matches!(source, Source::Bundled) => Scope::Bundled,
                None if matches!(source, Source::Remote(_)) => Scope::Remote,
                Some((_, span)) if matches!(source, Source::Bundled | Source::Remote(_)) => {
                    return Err(invalid(
                        at(span),
                        "scope",
                        "bundled and remote providers have their own scope".into(),
                    ));
                }
                None | Some(("user", _)) => Scope::User,
                Some(("project", _)) => Scope::Project,
                Some((other, span)) => {
                    return Err(invalid(
                        at(span),
                        "scope",
                        format!("unknown scope {other:?}; expected \"project\" or \"user\""),
                    ));
                }
            };
            let id = match &t.id {
                Some(id) => id.get_ref().clone(),
                None => match (&source, roots.first()) {
                    (Source::Local, Some(root)) => format!("local:{}", root.display()),
                    (Source::Local, None) => "local".to_string(),
                    (Source::Bundled, _) => "bundled".to_string(),
                    (Source::Remote(remote), _) => remote.provider_id(),
                    (Source::Wasm(file), _) => format!("wasm:{}", file.display()),
                },
            };
            if let Some(previous) = ids.insert(id.clone(), header) {
                return Err(invalid(
                    header,
                    "id",
                    format!("{id:?} is already the id of the provider on line {previous}"),
                ));
            }
            let origins = match (&source, t.origins.is_empty()) {
                (Source::Remote(remote), true) => remote.origins.clone(),
                _ => t.origins.iter().map(|o| o.get_ref().clone()).collect(),
            };
            providers.push(ProviderConfig {
                id,
                source,
                sha256: t.sha256.as_ref().map(|s| {
                    s.get_ref()
                        .strip_prefix("sha256:")
                        .unwrap_or(s.get_ref())
                        .to_ascii_lowercase()
                }),
                roots,
                origins,
                scope,
                limits,
                caps,
                settings: t.settings.clone().into_iter().collect(),
                line: header,
            });
        }
        let placed = providers.iter().any(|p| p.source == Source::Bundled);
        Ok(Config {
            path: path.to_path_buf(),
            providers,
            bundled: file.bundled.unwrap_or(true) && !placed,
        })
    }

    /// A registry running the configured providers. One that cannot start
    /// (a missing file, a pinned digest that no longer matches, a file that
    /// is not a provider) is left out with an error diagnostic naming it;
    /// the others run.
    pub fn registry(&self, runtime: &Runtime) -> Result<Registry, Error> {
        let registry = Registry::new();
        for provider in &self.providers {
            let at = format!("{}:{}", self.path.display(), provider.line);
            match self.spec(runtime, provider) {
                Ok(spec) => registry.add(runtime.provider(spec)),
                Err(e) => registry.report(
                    Diagnostic::error(at, format!("provider {} not started: {e}", provider.id))
                        .from_source(&provider.id),
                ),
            }
        }
        if self.bundled {
            registry.add(runtime.bundled_provider()?);
        }
        Ok(registry)
    }

    fn spec(&self, runtime: &Runtime, provider: &ProviderConfig) -> Result<ProviderSpec, Error> {
        let bytes: std::borrow::Cow<'static, [u8]> = match &provider.source {
            Source::Local => builtin::LOCAL_PROVIDER.into(),
            Source::Bundled => builtin::BUNDLED_PROVIDER.into(),
            Source::Remote(_) => builtin::REMOTE_PROVIDER.into(),
            Source::Wasm(file) => std::fs::read(file)
                .map_err(|source| Error::Io {
                    path: file.clone(),
                    source,
                })?
                .into(),
        };
        if let Some(pin) = &provider.sha256 {
            use sha2::{Digest, Sha256};
            let actual = crate::compile_cache::hex(&Sha256::digest(&bytes));
            if &actual != pin {
                return Err(Error::Component(format!(
                    "its component's SHA-256 is {actual}, but the configuration pins {pin}; \
                     update the pin if the change is expected"
                )));
            }
        }
        let mut spec = match &provider.source {
            Source::Local | Source::Wasm(_) => ProviderSpec {
                id: provider.id.clone(),
                scope: provider.scope,
                component: match &provider.source {
                    Source::Local => runtime.local_component()?,
                    _ => runtime.load_component(&bytes)?,
                },
                roots: provider.roots.clone(),
                settings: Vec::new(),
                origins: Vec::new(),
                virtual_roots: Vec::new(),
                namespace: None,
                poll: None,
                limits: provider.limits,
                caps: provider.caps,
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

/// `scheme://host:port` with an explicit port and nothing else.
fn check_origin(origin: &str) -> Result<(), String> {
    let (scheme, rest) = origin
        .split_once("://")
        .ok_or_else(|| format!("{origin:?} is not scheme://host:port"))?;
    if !matches!(scheme, "http" | "https") {
        return Err(format!("{origin:?}: the scheme must be http or https"));
    }
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| format!("{origin:?}: the port must be given (scheme://host:port)"))?;
    if host.is_empty() || host.contains('/') || port.parse::<u16>().is_err() {
        return Err(format!("{origin:?} is not scheme://host:port"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, Error> {
        Config::parse(text, Path::new("/etc/skillhost.toml"), Path::new("/etc"))
    }

    fn error(text: &str) -> (usize, String, String) {
        match parse(text) {
            Err(Error::Config {
                line, key, message, ..
            }) => (line, key, message),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn parses_every_key_with_paths_resolved_against_the_file() {
        let config = parse(
            "[[provider]]\nbuiltin = \"local\"\nroots = [\"skills\", \"/abs\"]\nscope = \"project\"\n\n\
             [[provider]]\nid = \"team\"\nwasm = \"team.wasm\"\nsha256 = \"sha256:ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789\"\n\
             origins = [\"https://skills.example.com:443\"]\nmemory_mib = 32\ndeadline_ms = 1500\n\
             max_skills = 10\nmax_text = 100\nmax_body = 1000\nsettings = { channel = \"stable\" }\n",
        )
        .unwrap();
        let [local, team] = &config.providers[..] else {
            panic!()
        };
        assert_eq!(local.source, Source::Local);
        assert_eq!(
            local.roots,
            [PathBuf::from("/etc/skills"), PathBuf::from("/abs")]
        );
        assert_eq!(local.id, "local:/etc/skills");
        assert_eq!(local.scope, Scope::Project);
        assert_eq!(local.line, 1);
        assert_eq!(team.source, Source::Wasm("/etc/team.wasm".into()));
        assert_eq!(
            team.sha256.as_deref(),
            Some("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
        );
        assert_eq!(team.limits.memory_bytes, 32 * 1024 * 1024);
        assert_eq!(team.limits.deadline, Duration::from_millis(1500));
        assert_eq!(
            (team.caps.max_skills, team.caps.max_text, team.caps.max_body),
            (10, 100, 1000)
        );
        assert_eq!(
            team.settings,
            [("channel".to_string(), "stable".to_string())]
        );
        assert_eq!(team.line, 6);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key_and_line() {
        let (line, key, _) = error("[[provider]]\nbuiltin = \"local\"\nmemory_gb = 1\n");
        assert_eq!((line, key.as_str()), (3, "memory_gb"));
        let (line, key, _) = error("[[providers]]\nbuiltin = \"local\"\n");
        assert_eq!((line, key.as_str()), (1, "providers"));
    }

    #[test]
    fn bad_values_are_errors_naming_the_key_and_line() {
        for (text, expected_line, expected_key) in [
            (
                "[[provider]]\nbuiltin = \"local\"\nmemory_mib = 0\n",
                3,
                "memory_mib",
            ),
            (
                "[[provider]]\nbuiltin = \"local\"\ndeadline_ms = \"soon\"\n",
                3,
                "",
            ),
            ("[[provider]]\nbuiltin = \"nope\"\n", 2, "builtin"),
            (
                "[[provider]]\nwasm = \"x.wasm\"\nsha256 = \"abc\"\n",
                3,
                "sha256",
            ),
            (
                "[[provider]]\nbuiltin = \"local\"\n\norigins = [\"ftp://x:21\"]\n",
                4,
                "origins",
            ),
            (
                "[[provider]]\nbuiltin = \"local\"\norigins = [\"https://x\"]\n",
                3,
                "origins",
            ),
            ("[[provider]]\nroots = []\n", 1, "builtin"),
            (
                "[[provider]]\nbuiltin = \"local\"\nscope = \"galaxy\"\n",
                3,
                "scope",
            ),
            (
                "[[provider]]\nid = \"a\"\nbuiltin = \"local\"\n[[provider]]\nid = \"a\"\nbuiltin = \"local\"\n",
                4,
                "id",
            ),
        ] {
            let (line, key, message) = error(text);
            assert_eq!(
                (line, key.as_str()),
                (expected_line, expected_key),
                "{text:?}: {message}"
            );
        }
    }

    #[test]
    fn nothing_is_granted_that_the_file_does_not_grant() {
        let config = parse("[[provider]]\nwasm = \"x.wasm\"\n").unwrap();
        let p = &config.providers[0];
        assert!(p.roots.is_empty() && p.origins.is_empty() && p.settings.is_empty());
    }
}
