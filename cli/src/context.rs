//! What every command works with: the sandbox, the configuration, and the
//! registry the command's sources make.

use crate::args::{ListingArgs, SourceArgs, StateArgs};
use anyhow::{Context as _, Result};
use skillhost::Catalog;
use skillhost::config::Config;
use skillhost::config::trust::TrustStore;
use skillhost::session::inject::Injector;
use skillhost::session::render::{RenderOptions, Scores, budget_for};
use skillhost::session::{SessionLog, activation};
use skillhost::text::escaped;
use skillhost::{Registry, RemoteSource, Runtime, Sources};
use skillhost_usage::UsageStore;
use skillhost_usage::score::catalog_scores;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The sandbox and the configuration file, if any.
pub struct Ctx {
    /// The one runtime of the process.
    pub runtime: Runtime,
    /// `--config FILE`, or `skillhost.toml` in the current folder.
    pub config: Option<Config>,
}

impl Ctx {
    /// Starts the sandbox and reads the configuration: the file given with
    /// `--config`, or a `skillhost.toml` in the current folder if the user
    /// trusted it (`skillhost trust`). An untrusted one is reported, with
    /// what it asks for, and not used.
    pub fn new(config: Option<&Path>) -> Result<Ctx> {
        let runtime = Runtime::new().context("cannot start the sandbox")?;
        let config = match config {
            Some(path) => Some(Config::load(path)?),
            None => found(&cwd()?.join(skillhost::config::FILE_NAME)),
        };
        Ok(Ctx { runtime, config })
    }

    /// How large the model's listing may be: `--listing-budget` or
    /// `--context-tokens`, else the configuration's `[listing]`, else the
    /// default (1% of a 200,000-token context).
    pub fn render_options(&self, listing: &ListingArgs) -> RenderOptions {
        let budget = match (listing.budget, listing.context_tokens) {
            (Some(chars), _) => Some(chars as usize),
            (None, Some(tokens)) => Some(budget_for(usize::try_from(tokens).unwrap_or(usize::MAX))),
            (None, None) => self.config.as_ref().and_then(|c| c.listing_budget),
        };
        match budget {
            Some(budget) => RenderOptions::default().with_budget(budget),
            None => RenderOptions::default(),
        }
    }

    /// The injector `inject` publishes with and `catalog --for model`
    /// prints with: the budget [`Ctx::render_options`] says, ranked by the
    /// usage store's scores of `catalog`, so both give one text and digest.
    pub fn injector(
        &self,
        listing: &ListingArgs,
        state: &StateArgs,
        catalog: &Catalog,
    ) -> Injector {
        Injector {
            scores: listing_scores(state, catalog),
            options: self.render_options(listing),
            ..Injector::default()
        }
    }

    /// A registry over the given sources, with the usual roots of the
    /// current folder when no root is given.
    pub fn registry(&self, sources: &SourceArgs) -> Result<Registry> {
        self.registry_at(sources, &cwd()?)
    }

    /// A registry over the given roots, else the configured providers, else
    /// the usual roots of `cwd`; then the remote mirrors; then the bundled
    /// skills unless `--no-bundled`.
    pub fn registry_at(&self, sources: &SourceArgs, cwd: &Path) -> Result<Registry> {
        let remotes = sources
            .remotes
            .iter()
            .map(|arg| RemoteSource::from_arg(arg))
            .collect::<Result<Vec<_>, _>>()?;
        let given = !sources.roots.is_empty();
        let mut wanted = if given {
            Sources::user_roots(&sources.roots)
        } else {
            Sources::usual(cwd, std::env::home_dir().as_deref())
        };
        wanted.remotes = remotes;
        wanted.bundled = !sources.no_bundled;
        Ok(match &self.config {
            Some(config) if !given => config.registry_with(
                &self.runtime,
                &Sources {
                    roots: Vec::new(),
                    ..wanted
                },
            )?,
            _ => self.runtime.registry_for_sources(&wanted)?,
        })
    }

    /// The registry of a session: its sources, and the nested roots the
    /// session discovered (ranked with the project's roots).
    pub fn session_registry(
        &self,
        sources: &SourceArgs,
        cwd: &Path,
        log: &dyn SessionLog,
    ) -> Result<Registry> {
        let registry = self.registry_at(sources, cwd)?;
        activation::register_discovered(&self.runtime, &registry, cwd, log)?;
        Ok(registry)
    }
}

/// The configuration found at `path` in the current folder, when the user
/// trusted it. A file planted there (a cloned repository's) is not used
/// until trusted, so it must not stop the command either: an untrusted
/// file is parsed only to say what it asks for, and a warning says why it
/// is not used, whatever it holds; the command runs on the default roots.
fn found(path: &Path) -> Option<Config> {
    if !path.is_file() {
        return None;
    }
    let shown = escaped(&path.display().to_string());
    let trusted: Result<bool, String> = TrustStore::open()
        .and_then(|store| store.is_trusted_file(path, &Config::digest_of(path)?))
        .map_err(|e| e.to_string());
    match trusted {
        Ok(true) => match Config::load(path) {
            Ok(config) => return Some(config),
            Err(e) => crate::output::eprint_text(&format!(
                "skillhost: {shown} is trusted but cannot be used, so the default roots are: {}",
                escaped(&e.to_string())
            )),
        },
        Ok(false) => {
            let asks = match Config::load(path) {
                Ok(config) => {
                    let asks = config.asks();
                    if asks.is_empty() {
                        "It asks for nothing beyond its own folder".to_string()
                    } else {
                        format!("It asks for: {}", asks.join("; "))
                    }
                }
                Err(e) => format!(
                    "It cannot be read as a configuration: {}",
                    escaped(&e.to_string())
                ),
            };
            crate::output::eprint_text(&format!(
                "skillhost: {shown} is not trusted, so it is not used (the default roots are). \
                 {asks}. Run `skillhost trust {shown}` to use it."
            ));
        }
        Err(e) => crate::output::eprint_text(&format!(
            "skillhost: {shown} is not used (the default roots are): the record of trusted \
             files cannot be read: {}",
            escaped(&e)
        )),
    }
    None
}

/// The current folder.
pub fn cwd() -> Result<PathBuf> {
    std::env::current_dir().context("cannot read the current folder")
}

/// The usage store's file for `--state` (or the environment's default).
pub fn usage_path(state: &StateArgs) -> Result<PathBuf> {
    skillhost_usage::store::default_path(state.state.as_deref())
        .context("no state folder: pass --state DIR or set SKILLHOST_STATE_DIR")
}

/// The usage store, created if needed.
pub fn usage_store(state: &StateArgs) -> Result<UsageStore> {
    Ok(UsageStore::open(&usage_path(state)?)?)
}

/// The usage scores of `catalog`'s skills, when a usage store exists: what
/// ranks every listing the CLI renders (`inject`, `catalog --for model`,
/// `catalog --search`), so one store gives one order. The listing matters
/// more than its order: a store that cannot be read is reported and the
/// listing goes out ranked by precedence and name alone.
pub fn listing_scores(state: &StateArgs, catalog: &Catalog) -> Option<Arc<Scores>> {
    let found = usage_path(state).and_then(|path| Ok(UsageStore::open_existing(&path)?));
    let store = match found {
        Ok(store) => store?,
        Err(e) => {
            crate::output::eprint_text(&format!(
                "skillhost: warning: usage scores not used: {e:#}"
            ));
            return None;
        }
    };
    match store.usage() {
        Ok(usage) => Some(Arc::new(catalog_scores(catalog, &usage, store.now()))),
        Err(e) => {
            crate::output::eprint_text(&format!("skillhost: warning: usage scores not used: {e}"));
            None
        }
    }
}
