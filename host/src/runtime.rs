//! The entry point for embedders: one sandbox engine and the first-party
//! components, from which providers and registries are made.

use crate::error::Error;
use crate::model::Scope;
use crate::provider::sources::{builtin, bundled, local, remote::RemoteSource};
use crate::provider::{Provider, ProviderSpec};
use crate::registry::Registry;
use crate::sandbox::{CompileCache, LoadedComponent, SandboxEngine};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One sandbox engine and the first-party components, loaded once each.
pub struct Runtime {
    engine: SandboxEngine,
    local: OnceLock<Arc<LoadedComponent>>,
    bundled: OnceLock<Arc<LoadedComponent>>,
    remote: OnceLock<Arc<LoadedComponent>>,
}

/// Where a registry's skills come from, highest precedence first: local
/// roots, then remote mirrors (namespaced, so they never shadow), then the
/// bundled skills. [`Runtime::registry_for_sources`] turns it into a
/// registry; every other registry constructor is a shorthand for one.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Local skill roots and the scope each is in.
    pub roots: Vec<(PathBuf, Scope)>,
    /// Remote mirrors.
    pub remotes: Vec<RemoteSource>,
    /// Whether the bundled skills are included (lowest precedence).
    pub bundled: bool,
}

impl Sources {
    /// Local roots the user named (user scope), and nothing else.
    pub fn user_roots(roots: impl IntoIterator<Item = impl Into<PathBuf>>) -> Sources {
        Sources {
            roots: roots.into_iter().map(|r| (r.into(), Scope::User)).collect(),
            ..Sources::default()
        }
    }

    /// The usual roots ([`local::default_roots`]): the project's (watched
    /// within a bounded set) before the user's, then the bundled skills.
    pub fn usual(cwd: &Path, home: Option<&Path>) -> Sources {
        Sources {
            roots: local::default_roots(cwd, home),
            remotes: Vec::new(),
            bundled: true,
        }
    }
}

impl Runtime {
    /// A runtime caching compiled components in the default folder
    /// (see [`CompileCache::default_dir`]).
    pub fn new() -> Result<Runtime, Error> {
        Runtime::with_cache_dir(CompileCache::default_dir())
    }

    /// A runtime caching compiled components in `dir` (none: no disk cache).
    pub fn with_cache_dir(dir: Option<PathBuf>) -> Result<Runtime, Error> {
        Ok(Runtime {
            engine: SandboxEngine::new(dir)?,
            local: OnceLock::new(),
            bundled: OnceLock::new(),
            remote: OnceLock::new(),
        })
    }

    /// The sandbox engine.
    pub fn engine(&self) -> &SandboxEngine {
        &self.engine
    }

    /// Compiles (or loads from the cache) a provider component.
    pub fn load_component(&self, bytes: &[u8]) -> Result<Arc<LoadedComponent>, Error> {
        Ok(Arc::new(self.engine.load(bytes)?))
    }

    fn embedded(
        &self,
        slot: &OnceLock<Arc<LoadedComponent>>,
        bytes: &[u8],
    ) -> Result<Arc<LoadedComponent>, Error> {
        if let Some(c) = slot.get() {
            return Ok(c.clone());
        }
        let loaded = self.load_component(bytes)?;
        Ok(slot.get_or_init(|| loaded).clone())
    }

    /// The embedded local filesystem provider component, loaded once.
    pub fn local_component(&self) -> Result<Arc<LoadedComponent>, Error> {
        self.embedded(&self.local, builtin::LOCAL_PROVIDER)
    }

    /// The embedded bundled-skills provider component, loaded once.
    pub fn bundled_component(&self) -> Result<Arc<LoadedComponent>, Error> {
        self.embedded(&self.bundled, builtin::BUNDLED_PROVIDER)
    }

    /// The embedded remote provider component, loaded once.
    pub fn remote_component(&self) -> Result<Arc<LoadedComponent>, Error> {
        self.embedded(&self.remote, builtin::REMOTE_PROVIDER)
    }

    /// The provider of the skills compiled into skillhost. It is granted
    /// nothing: no files, no network.
    pub fn bundled_provider(&self) -> Result<Arc<Provider>, Error> {
        Ok(self.provider(self.bundled_spec()?))
    }

    /// The specification of [`Runtime::bundled_provider`].
    pub fn bundled_spec(&self) -> Result<ProviderSpec, Error> {
        Ok(bundled::spec(self.bundled_component()?))
    }

    /// A provider for a remote mirror: granted its origins and nothing
    /// else; its skills are listed as `label:name`.
    pub fn remote_provider(&self, source: &RemoteSource) -> Result<Arc<Provider>, Error> {
        Ok(self.provider(self.remote_spec(source)?))
    }

    /// The specification of [`Runtime::remote_provider`].
    pub fn remote_spec(&self, source: &RemoteSource) -> Result<ProviderSpec, Error> {
        Ok(source.spec(self.remote_component()?))
    }

    /// A local filesystem provider for one root (user scope), with default
    /// limits.
    pub fn local_provider(&self, root: impl AsRef<Path>) -> Result<Arc<Provider>, Error> {
        self.local_provider_in(root, Scope::User)
    }

    /// A local filesystem provider for one root in the given scope.
    pub fn local_provider_in(
        &self,
        root: impl AsRef<Path>,
        scope: Scope,
    ) -> Result<Arc<Provider>, Error> {
        Ok(self.provider(local::spec(self.local_component()?, root.as_ref(), scope)))
    }

    /// A provider from a full specification.
    pub fn provider(&self, spec: ProviderSpec) -> Arc<Provider> {
        Provider::new(&self.engine, spec)
    }

    /// A registry with one local provider per root (user scope), in
    /// precedence order.
    pub fn registry_for_roots(&self, roots: &[impl AsRef<Path>]) -> Result<Registry, Error> {
        self.registry_for_sources(&Sources::user_roots(roots.iter().map(|r| r.as_ref())))
    }

    /// A registry over `sources`, in precedence order.
    pub fn registry_for_sources(&self, sources: &Sources) -> Result<Registry, Error> {
        let registry = Registry::new();
        self.add_sources(&registry, sources)?;
        Ok(registry)
    }

    /// Adds the providers of `sources` to `registry`, after those it has.
    pub fn add_sources(&self, registry: &Registry, sources: &Sources) -> Result<(), Error> {
        for (root, scope) in &sources.roots {
            registry.add(self.local_provider_in(root, *scope)?)?;
        }
        for remote in &sources.remotes {
            registry.add(self.remote_provider(remote)?)?;
        }
        if sources.bundled {
            registry.add(self.bundled_provider()?)?;
        }
        Ok(())
    }

    /// A registry over the usual roots of `cwd` and `home` and the bundled
    /// skills ([`Sources::usual`]).
    pub fn registry_for_default_roots(
        &self,
        cwd: &Path,
        home: Option<&Path>,
    ) -> Result<Registry, Error> {
        self.registry_for_sources(&Sources::usual(cwd, home))
    }
}
