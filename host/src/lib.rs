//! skillhost: serves agent skills from sandboxed WebAssembly providers.
//!
//! The host runs the registry, invalidation and catalog; every provider is a
//! component behind the `skillhost:provider@0.1.0` WIT contract, running in
//! wasmtime with only what it was granted.
//!
//! ```no_run
//! use skillhost::Runtime;
//!
//! let runtime = Runtime::new()?;
//! let registry = runtime.registry_for_roots(&["examples/skills"])?;
//! let catalog = registry.snapshot();
//! for skill in &catalog.skills {
//!     println!("{}: {}", skill.name(), skill.description().unwrap_or(""));
//! }
//! let doc = registry.load("writing-skills")?;
//! println!("{}", doc.body);
//! # Ok::<(), skillhost::Error>(())
//! ```
//!
//! An agent host, at each step, after each file tool, and for each skill call:
//!
//! ```no_run
//! use skillhost::invoke::{self, Caller, ForkPlan, ForkRunner, Invocation, Request};
//! use skillhost::session_log::JsonlLog;
//! use skillhost::{Runtime, activation, inject::Injector, render::RenderOptions};
//! use std::path::PathBuf;
//!
//! struct SubAgents;
//! impl ForkRunner for SubAgents {
//!     fn run(&mut self, plan: &ForkPlan, tools: &[String]) -> Result<String, String> {
//!         Ok(format!("ran {} with {tools:?}", plan.skill))
//!     }
//! }
//!
//! let cwd = std::env::current_dir().unwrap();
//! let runtime = Runtime::new()?;
//! let registry = runtime.registry_for_default_roots(&cwd, std::env::home_dir().as_deref())?;
//! registry.watch(Default::default())?;
//! let mut log = JsonlLog::open("session.jsonl".as_ref())?;
//!
//! // Each step: a full replacement only if the model's view changed.
//! let outcome = Injector::default().replace(&registry.snapshot(), &mut log)?;
//! println!("{}", outcome.as_str());
//!
//! // After the agent wrote a file: visible at once, and conditional skills activated.
//! let written = cwd.join("src/ui/Button.tsx");
//! registry.observe_paths(std::slice::from_ref(&written))?;
//! let touched = activation::touch(&runtime, &registry, &cwd, &[written], &mut log, RenderOptions::default())?;
//! let mut tool_result = String::from("wrote src/ui/Button.tsx");
//! if let Some(reminder) = touched.reminder {
//!     tool_result.push('\n');
//!     tool_result.push_str(&reminder);
//! }
//!
//! // The model calls the Skill tool.
//! let args = vec!["HEAD~1".to_string()];
//! let request = Request { name: "review", args: &args, caller: Caller::Model, session_id: "s-1", max_steps: None };
//! match invoke::invoke(&registry, &request, &activation::activated(&log))? {
//!     Invocation::Inline { text, .. } => println!("{text}"),
//!     Invocation::Fork(plan) => {
//!         let tools = ["Read".to_string(), "Bash".to_string(), "Write".to_string()];
//!         println!("{}", invoke::run_fork(&plan, &tools, &mut SubAgents)?);
//!     }
//! }
//! # Ok::<(), skillhost::Error>(())
//! ```

pub mod activation;
pub mod bench;
mod bindings;
pub mod boundary;
pub mod builtin;
pub mod capabilities;
pub mod compile_cache;
pub mod config;
pub mod engine;
pub mod error;
pub mod files;
mod host_api;
pub mod http_access;
pub mod inject;
pub mod invoke;
pub mod mirror;
pub mod model;
pub mod poll;
mod prefetch;
pub mod provider;
pub mod registry;
pub mod remote;
pub mod render;
pub mod roots;
pub mod sandbox;
pub mod session_log;
pub mod validate;
pub mod watcher;

pub use error::Error;
pub use model::{Catalog, Diagnostic, Severity, Skill, SkillDocument};
pub use provider::{Provider, ProviderSpec, Scope};
pub use registry::Registry;

use boundary::Caps;
use capabilities::VirtualRoot;
use engine::{LoadedComponent, SandboxEngine};
use remote::RemoteSource;
use sandbox::Limits;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The guest path the bundled provider's skills live under.
pub const BUNDLED_ROOT: &str = "/bundled";
/// The guest path a remote provider's skills live under.
pub const REMOTE_ROOT: &str = "/remote";

/// The entry point for embedders: one sandbox engine and the first-party
/// components, from which providers and registries are made.
pub struct Runtime {
    engine: SandboxEngine,
    local: OnceLock<Arc<LoadedComponent>>,
    bundled: OnceLock<Arc<LoadedComponent>>,
    remote: OnceLock<Arc<LoadedComponent>>,
}

/// Where a registry's skills come from, highest precedence first: local
/// roots, then remote mirrors (namespaced, so they never shadow), then the
/// bundled skills.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Local skill roots.
    pub roots: Vec<PathBuf>,
    /// Remote mirrors.
    pub remotes: Vec<RemoteSource>,
    /// Whether the bundled skills are included (lowest precedence).
    pub bundled: bool,
}

impl Runtime {
    /// A runtime caching compiled components in the default folder
    /// (see [`compile_cache::CompileCache::default_dir`]).
    pub fn new() -> Result<Runtime, Error> {
        Runtime::with_cache_dir(compile_cache::CompileCache::default_dir())
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
        self.engine.load(bytes).map(Arc::new)
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
        Ok(ProviderSpec {
            id: "bundled".to_string(),
            scope: Scope::Bundled,
            component: self.bundled_component()?,
            roots: Vec::new(),
            settings: Vec::new(),
            origins: Vec::new(),
            virtual_roots: vec![VirtualRoot {
                guest: BUNDLED_ROOT.to_string(),
                shown: PathBuf::from("bundled:"),
            }],
            namespace: None,
            poll: None,
            limits: Limits::default(),
            caps: Caps::default(),
        })
    }

    /// A provider for a remote mirror: granted its origins and nothing
    /// else; its skills are listed as `label:name`.
    pub fn remote_provider(&self, source: &RemoteSource) -> Result<Arc<Provider>, Error> {
        Ok(self.provider(self.remote_spec(source)?))
    }

    /// The specification of [`Runtime::remote_provider`].
    pub fn remote_spec(&self, source: &RemoteSource) -> Result<ProviderSpec, Error> {
        Ok(ProviderSpec {
            id: source.provider_id(),
            scope: Scope::Remote,
            component: self.remote_component()?,
            roots: Vec::new(),
            settings: source.settings(),
            origins: source.origins.clone(),
            virtual_roots: vec![VirtualRoot {
                guest: REMOTE_ROOT.to_string(),
                shown: source.shown(),
            }],
            namespace: Some(source.label.clone()),
            poll: Some(source.poll),
            limits: source.limits,
            caps: Caps::default(),
        })
    }

    /// A local filesystem provider for one root (user scope), with default
    /// limits.
    pub fn local_provider(&self, root: impl Into<PathBuf>) -> Result<Arc<Provider>, Error> {
        self.local_provider_in(root, Scope::User)
    }

    /// A local filesystem provider for one root in the given scope.
    pub fn local_provider_in(
        &self,
        root: impl Into<PathBuf>,
        scope: Scope,
    ) -> Result<Arc<Provider>, Error> {
        let root = capabilities::absolute(&root.into());
        Ok(self.provider(ProviderSpec {
            id: format!("local:{}", root.display()),
            scope,
            component: self.local_component()?,
            roots: vec![root],
            settings: Vec::new(),
            origins: Vec::new(),
            virtual_roots: Vec::new(),
            namespace: None,
            poll: None,
            limits: Limits::default(),
            caps: Caps::default(),
        }))
    }

    /// A provider from a full specification.
    pub fn provider(&self, spec: ProviderSpec) -> Arc<Provider> {
        Provider::new(&self.engine, spec)
    }

    /// A registry with one local provider per root, in precedence order.
    pub fn registry_for_roots(
        &self,
        roots: &[impl AsRef<std::path::Path>],
    ) -> Result<Registry, Error> {
        let registry = Registry::new();
        for root in roots {
            registry.add(self.local_provider(root.as_ref())?);
        }
        Ok(registry)
    }

    /// A registry over `sources`, in precedence order.
    pub fn registry_for_sources(&self, sources: &Sources) -> Result<Registry, Error> {
        let registry = self.registry_for_roots(&sources.roots)?;
        for remote in &sources.remotes {
            registry.add(self.remote_provider(remote)?);
        }
        if sources.bundled {
            registry.add(self.bundled_provider()?);
        }
        Ok(registry)
    }

    /// A registry over the usual roots ([`roots::default_roots`]): the
    /// project's (watched within a bounded set) before the user's, then
    /// the bundled skills.
    pub fn registry_for_default_roots(
        &self,
        cwd: &std::path::Path,
        home: Option<&std::path::Path>,
    ) -> Result<Registry, Error> {
        let registry = Registry::new();
        for (root, scope) in roots::default_roots(cwd, home) {
            registry.add(self.local_provider_in(root, scope)?);
        }
        registry.add(self.bundled_provider()?);
        Ok(registry)
    }
}
