//! What every command works with: the sandbox, the configuration, and the
//! registry the command's sources make.

use crate::args::{SourceArgs, StateArgs};
use anyhow::{Context as _, Result};
use skillhost::config::Config;
use skillhost::config::trust::TrustStore;
use skillhost::provider::sources::local::default_roots;
use skillhost::session::{SessionLog, activation};
use skillhost::text::escaped;
use skillhost::usage::UsageStore;
use skillhost::{Registry, RemoteSource, Runtime, Scope, Sources};
use std::path::{Path, PathBuf};

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

    /// A registry over the given sources, with the usual roots of the
    /// current folder when no root is given.
    pub fn registry(&self, sources: &SourceArgs) -> Result<Registry> {
        self.registry_at(sources, &cwd()?)
    }

    /// A registry over the given roots, else the configured providers, else
    /// the usual roots of `cwd`; then the remote mirrors; then the bundled
    /// skills.
    pub fn registry_at(&self, sources: &SourceArgs, cwd: &Path) -> Result<Registry> {
        let runtime = &self.runtime;
        let remotes = sources
            .remotes
            .iter()
            .map(|arg| RemoteSource::from_arg(arg))
            .collect::<Result<Vec<_>, _>>()?;
        let registry = if !sources.roots.is_empty() {
            runtime.registry_for_sources(&Sources {
                roots: sources.roots.clone(),
                remotes,
                bundled: !sources.no_bundled,
            })?
        } else if let Some(config) = &self.config {
            let registry = config.registry(runtime)?;
            for remote in &remotes {
                registry.add(runtime.remote_provider(remote)?)?;
            }
            registry
        } else {
            let registry = Registry::new();
            for (root, scope) in default_roots(cwd, std::env::home_dir().as_deref()) {
                registry.add(runtime.local_provider_in(root, scope)?)?;
            }
            for remote in &remotes {
                registry.add(runtime.remote_provider(remote)?)?;
            }
            registry.add(runtime.bundled_provider()?)?;
            registry
        };
        if sources.no_bundled {
            for provider in registry.providers() {
                if provider.scope() == Scope::Bundled {
                    registry.remove(provider.id());
                }
            }
        }
        Ok(registry)
    }

    /// The registry of a session: its sources, then the nested roots the
    /// session discovered (lowest precedence).
    pub fn session_registry(
        &self,
        sources: &SourceArgs,
        cwd: &Path,
        log: &dyn SessionLog,
    ) -> Result<Registry> {
        let registry = self.registry_at(sources, cwd)?;
        for root in activation::discovered_roots(log, cwd) {
            registry.add(self.runtime.local_provider_in(root, Scope::Project)?)?;
        }
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
    skillhost::usage::store::default_path(state.state.as_deref())
        .context("no state folder: pass --state DIR or set SKILLHOST_STATE_DIR")
}

/// The usage store, created if needed.
pub fn usage_store(state: &StateArgs) -> Result<UsageStore> {
    Ok(UsageStore::open(&usage_path(state)?)?)
}
