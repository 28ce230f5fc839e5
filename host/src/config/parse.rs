//! Reading `skillhost.toml`: every key checked, every error naming the key
//! and its line (`skillhost.toml:4: memroy_mib: unknown field …`).

use super::{Config, ProviderConfig, Source};
use crate::error::Error;
use crate::model::Scope;
use crate::paths::absolute;
use crate::provider::Caps;
use crate::provider::sources::{bundled, local, remote};
use crate::sandbox::Limits;
use remote::RemoteSource;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    bundled: Option<bool>,
    #[serde(default)]
    provider: Vec<Spanned<ProviderTable>>,
    listing: Option<Spanned<ListingTable>>,
}

/// The `[listing]` table: how large the model's listing may be, as a
/// budget in characters or the model's context size in tokens (one of them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ListingTable {
    budget: Option<Spanned<i64>>,
    context_tokens: Option<Spanned<i64>>,
}

/// The fewest and most characters a listing budget may be: below the
/// first not even one name with its note fits; above the second the listing
/// would crowd out the conversation of any model there is.
pub(super) const BUDGET_RANGE: std::ops::RangeInclusive<i64> = 200..=1_000_000;
/// The context sizes, in tokens, a budget may be sized from.
pub(super) const CONTEXT_RANGE: std::ops::RangeInclusive<i64> = 20_000..=100_000_000;

/// One `[[provider]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProviderTable {
    id: Option<Spanned<String>>,
    builtin: Option<Spanned<String>>,
    wasm: Option<Spanned<String>>,
    oci: Option<Spanned<String>>,
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
    transport: Option<Spanned<String>>,
}

/// The range of every number the file may give: a value outside it is an
/// error naming the key and line, so no limit can be switched off and no
/// timer can overflow.
const RANGES: &[(&str, u64, u64)] = &[
    // A 32-bit memory.
    ("memory_mib", 1, 4096),
    // Ten minutes.
    ("deadline_ms", 1, 600_000),
    ("max_skills", 1, 100_000),
    ("max_text", 1, 1024 * 1024),
    ("max_body", 1, 16 * 1024 * 1024),
    // A day.
    ("poll_seconds", 1, 86_400),
    ("max_index_bytes", 1, 1024 * 1024 * 1024),
];

/// The text being read, and how to report on it.
struct Reader<'a> {
    text: &'a str,
    path: &'a Path,
    base: &'a Path,
    home: Option<PathBuf>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Reader<'_> {
    /// Everything in it came from the file, so key and message are shown
    /// escaped: an unknown key holding terminal escapes is printed as text.
    fn invalid(&self, line: usize, key: &str, message: impl Into<String>) -> Error {
        Error::Config {
            path: self.path.to_path_buf(),
            line,
            key: crate::text::escaped(key),
            message: crate::text::escaped(&message.into()),
        }
    }

    fn at(&self, span: Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    /// A path from the file: `~` is the home folder, relative paths are
    /// relative to the file's folder.
    fn resolve(&self, value: &str) -> PathBuf {
        let expanded = match (value.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if value == "~" => self.home.clone().unwrap_or_default(),
            _ => PathBuf::from(value),
        };
        absolute(&if expanded.is_absolute() {
            expanded
        } else {
            self.base.join(expanded)
        })
    }

    /// A number within its key's range (see [`RANGES`]).
    fn ranged(&self, value: &Option<Spanned<u64>>, key: &str) -> Result<Option<u64>, Error> {
        let Some(v) = value else {
            return Ok(None);
        };
        let (min, max) = RANGES
            .iter()
            .find(|(k, _, _)| *k == key)
            .map_or((1, u64::MAX), |(_, min, max)| (*min, *max));
        let n = *v.get_ref();
        if n < min {
            return Err(self.invalid(self.at(v.span()), key, format!("must be at least {min}")));
        }
        if n > max {
            return Err(self.invalid(self.at(v.span()), key, format!("must be at most {max}")));
        }
        Ok(Some(n))
    }

    fn source(&self, t: &ProviderTable, header: usize) -> Result<Source, Error> {
        match (&t.builtin, &t.wasm) {
            (Some(b), None) => match b.get_ref().as_str() {
                "local" => Ok(Source::Local),
                "bundled" => Ok(Source::Bundled),
                "remote" => Ok(Source::Remote(Box::new(self.remote(t, header)?))),
                other => Err(self.invalid(
                    self.at(b.span()),
                    "builtin",
                    format!(
                        "unknown builtin {other:?}; expected \"local\", \"bundled\" or \"remote\""
                    ),
                )),
            },
            (None, Some(w)) => Ok(Source::Wasm(self.resolve(w.get_ref()))),
            (Some(b), Some(_)) => Err(self.invalid(
                self.at(b.span()),
                "builtin",
                "give builtin or wasm, not both",
            )),
            (None, None) => Err(self.invalid(
                header,
                "builtin",
                "a provider needs builtin = \"local\" or wasm = \"file.wasm\"",
            )),
        }
    }

    fn remote(&self, t: &ProviderTable, header: usize) -> Result<RemoteSource, Error> {
        let url = t.url.as_ref().ok_or_else(|| {
            self.invalid(header, "url", "a remote provider needs url = \"https://…\"")
        })?;
        let mut remote = RemoteSource::new(url.get_ref())
            .map_err(|e| self.invalid(self.at(url.span()), "url", e.to_string()))?;
        if let Some(transport) = &t.transport {
            let chosen = match transport.get_ref().as_str() {
                "mirror" => remote::Transport::Mirror,
                "mcp" => remote::Transport::Mcp,
                other => {
                    return Err(self.invalid(
                        self.at(transport.span()),
                        "transport",
                        format!("unknown transport {other:?}; expected \"mirror\" or \"mcp\""),
                    ));
                }
            };
            remote = remote
                .with_transport(chosen)
                .map_err(|e| self.invalid(self.at(transport.span()), "transport", e.to_string()))?;
        }
        if let Some(label) = &t.label {
            remote = remote
                .labelled(label.get_ref())
                .map_err(|e| self.invalid(self.at(label.span()), "label", e.to_string()))?;
        }
        if let Some(seconds) = self.ranged(&t.poll_seconds, "poll_seconds")? {
            remote.poll = Duration::from_secs(seconds);
        }
        remote.max_index_bytes = self.ranged(&t.max_index_bytes, "max_index_bytes")?;
        Ok(remote)
    }

    /// Keys only some sources take, given to another.
    fn check_keys(&self, t: &ProviderTable, source: &Source) -> Result<(), Error> {
        if !matches!(source, Source::Remote(_)) {
            let remote_only = [
                ("url", t.url.as_ref().map(Spanned::span)),
                ("label", t.label.as_ref().map(Spanned::span)),
                ("poll_seconds", t.poll_seconds.as_ref().map(Spanned::span)),
                ("transport", t.transport.as_ref().map(Spanned::span)),
                (
                    "max_index_bytes",
                    t.max_index_bytes.as_ref().map(Spanned::span),
                ),
            ];
            if let Some((key, Some(span))) = remote_only.into_iter().find(|(_, s)| s.is_some()) {
                return Err(self.invalid(
                    self.at(span),
                    key,
                    "only a remote provider (builtin = \"remote\") takes this key",
                ));
            }
        }
        if matches!(source, Source::Bundled | Source::Remote(_)) && !t.roots.is_empty() {
            return Err(self.invalid(
                self.at(t.roots[0].span()),
                "roots",
                "bundled and remote providers read no files; remove roots",
            ));
        }
        Ok(())
    }

    /// The pinned component digest, lowercase hex without prefix.
    fn pin(&self, t: &ProviderTable) -> Result<Option<String>, Error> {
        let Some(pin) = &t.sha256 else {
            return Ok(None);
        };
        let hex = pin
            .get_ref()
            .strip_prefix("sha256:")
            .unwrap_or(pin.get_ref());
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.invalid(
                self.at(pin.span()),
                "sha256",
                "must be 64 hexadecimal digits",
            ));
        }
        Ok(Some(hex.to_ascii_lowercase()))
    }

    fn origins(&self, t: &ProviderTable, source: &Source) -> Result<Vec<String>, Error> {
        for origin in &t.origins {
            check_origin(origin.get_ref())
                .map_err(|m| self.invalid(self.at(origin.span()), "origins", m))?;
        }
        Ok(match (source, t.origins.is_empty()) {
            (Source::Remote(remote), true) => remote.origins.clone(),
            _ => t.origins.iter().map(|o| o.get_ref().clone()).collect(),
        })
    }

    fn limits(&self, t: &ProviderTable, source: &Source) -> Result<Limits, Error> {
        let mut limits = match source {
            Source::Remote(_) => remote::default_limits(),
            _ => Limits::default(),
        };
        if let Some(mib) = self.ranged(&t.memory_mib, "memory_mib")? {
            limits.memory_bytes = (mib * 1024 * 1024) as usize;
        }
        if let Some(ms) = self.ranged(&t.deadline_ms, "deadline_ms")? {
            limits.deadline = Duration::from_millis(ms);
        }
        Ok(limits)
    }

    fn caps(&self, t: &ProviderTable) -> Result<Caps, Error> {
        let mut caps = Caps::default();
        if let Some(n) = self.ranged(&t.max_skills, "max_skills")? {
            caps.max_skills = n as usize;
        }
        if let Some(n) = self.ranged(&t.max_text, "max_text")? {
            caps.max_text = n as usize;
        }
        if let Some(n) = self.ranged(&t.max_body, "max_body")? {
            caps.max_body = n as usize;
        }
        Ok(caps)
    }

    fn scope(&self, t: &ProviderTable, source: &Source) -> Result<Scope, Error> {
        let fixed = matches!(source, Source::Bundled | Source::Remote(_));
        match t.scope.as_ref().map(|s| (s.get_ref().as_str(), s.span())) {
            None if matches!(source, Source::Bundled) => Ok(Scope::Bundled),
            None if matches!(source, Source::Remote(_)) => Ok(Scope::Remote),
            Some((_, span)) if fixed => Err(self.invalid(
                self.at(span),
                "scope",
                "bundled and remote providers have their own scope",
            )),
            None | Some(("user", _)) => Ok(Scope::User),
            Some(("project", _)) => Ok(Scope::Project),
            Some((other, span)) => Err(self.invalid(
                self.at(span),
                "scope",
                format!("unknown scope {other:?}; expected \"project\" or \"user\""),
            )),
        }
    }

    /// Where a component pulled from a registry came from. It runs from
    /// its `wasm` file (the content-addressed store) and only pinned, so
    /// the registry is never asked while it runs; `oci` is what `update`
    /// follows.
    fn oci(&self, t: &ProviderTable, sha256: Option<&String>) -> Result<Option<String>, Error> {
        let Some(oci) = &t.oci else {
            return Ok(None);
        };
        let line = self.at(oci.span());
        let value = oci.get_ref();
        if !value.starts_with("oci://") || !value.contains("@sha256:") {
            return Err(self.invalid(
                line,
                "oci",
                "must be oci://REGISTRY/REPOSITORY:TAG@sha256:DIGEST (pinned to a manifest)",
            ));
        }
        if t.wasm.is_none() || sha256.is_none() {
            return Err(self.invalid(
                line,
                "oci",
                "a component from a registry needs its stored `wasm` file and its `sha256` pin",
            ));
        }
        Ok(Some(value.clone()))
    }

    fn table(&self, t: &ProviderTable, header: usize) -> Result<ProviderConfig, Error> {
        let source = self.source(t, header)?;
        self.check_keys(t, &source)?;
        let sha256 = self.pin(t)?;
        let oci = self.oci(t, sha256.as_ref())?;
        let roots: Vec<PathBuf> = t.roots.iter().map(|r| self.resolve(r.get_ref())).collect();
        let origins = self.origins(t, &source)?;
        let limits = self.limits(t, &source)?;
        let caps = self.caps(t)?;
        let scope = self.scope(t, &source)?;
        let id = match &t.id {
            Some(id) => id.get_ref().clone(),
            None => match (&source, roots.first()) {
                (Source::Local, Some(root)) => local::id(root),
                (Source::Local, None) => "local".to_string(),
                (Source::Bundled, _) => bundled::ID.to_string(),
                (Source::Remote(remote), _) => remote.provider_id(),
                (Source::Wasm(file), _) => format!("wasm:{}", file.display()),
            },
        };
        Ok(ProviderConfig {
            id,
            source,
            sha256,
            oci,
            roots,
            origins,
            scope,
            limits,
            caps,
            settings: t.settings.clone().into_iter().collect(),
            line: header,
        })
    }
}

/// Parses `text` (read from `path`; relative paths against `base`).
pub(super) fn parse(text: &str, path: &Path, base: &Path) -> Result<Config, Error> {
    let reader = Reader {
        text,
        path,
        base,
        home: std::env::home_dir(),
    };
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        let message = e.message().to_string();
        let key = message
            .strip_prefix("unknown field `")
            .and_then(|m| m.split('`').next())
            .unwrap_or("")
            .to_string();
        reader.invalid(line, &key, message)
    })?;
    let mut providers = Vec::new();
    let mut ids = BTreeMap::new();
    for table in &file.provider {
        let header = line_of(text, table.span().start);
        let provider = reader.table(table.get_ref(), header)?;
        if let Some(previous) = ids.insert(provider.id.clone(), header) {
            return Err(reader.invalid(
                header,
                "id",
                format!(
                    "{:?} is already the id of the provider on line {previous}",
                    provider.id
                ),
            ));
        }
        providers.push(provider);
    }
    let placed = providers.iter().any(|p| p.source == Source::Bundled);
    let listing_budget = match &file.listing {
        Some(table) => reader.listing(table)?,
        None => None,
    };
    Ok(Config {
        listing_budget,
        path: path.to_path_buf(),
        digest: skillhost_skill::digest::sha256(text.as_bytes()),
        providers,
        bundled: file.bundled.unwrap_or(true) && !placed,
    })
}

impl Reader<'_> {
    /// The listing budget `[listing]` sets, in characters.
    fn listing(&self, table: &Spanned<ListingTable>) -> Result<Option<usize>, Error> {
        let header = line_of(self.text, table.span().start);
        let table = table.get_ref();
        let in_range = |value: &Spanned<i64>, key: &str, range: &std::ops::RangeInclusive<i64>| {
            let line = line_of(self.text, value.span().start);
            let n = *value.get_ref();
            if range.contains(&n) {
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            } else {
                Err(self.invalid(
                    line,
                    key,
                    format!(
                        "{n} is out of range: it must be {} to {}",
                        range.start(),
                        range.end()
                    ),
                ))
            }
        };
        match (&table.budget, &table.context_tokens) {
            (Some(_), Some(_)) => Err(self.invalid(
                header,
                "listing",
                "set budget (characters) or context-tokens, not both".to_string(),
            )),
            (Some(budget), None) => in_range(budget, "budget", &BUDGET_RANGE).map(Some),
            (None, Some(tokens)) => in_range(tokens, "context-tokens", &CONTEXT_RANGE)
                .map(|t| Some(crate::session::render::budget_for(t))),
            (None, None) => Ok(None),
        }
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
