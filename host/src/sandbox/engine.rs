//! The one wasmtime `Engine` of a process, its `Linker` (WASI, `wasi:http`,
//! the denied shims and the contract's imports), the epoch ticker, and
//! component loading through the compile cache.

use super::bindings::{v0_1_0, v0_2_0, v0_3_0};
use super::compile_cache::{CacheOutcome, CompileCache};
use super::error::SandboxError as Error;
use super::imports::files::FilesData;
use super::imports::host::HostData;
use super::imports::{denied, wasi};
use super::state::HostState;
use super::ticker::{TickGuard, Ticker};
use super::versions::{self, Contract};
use super::workers::{MAX_WORKERS, Workers};
use std::path::PathBuf;
use std::sync::Arc;
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine};

/// Largest provider component file the host reads, in bytes.
pub const MAX_COMPONENT_BYTES: u64 = 256 * 1024 * 1024;

/// Reads a provider component from a file: a regular file of at most
/// [`MAX_COMPONENT_BYTES`], so a path naming a FIFO, a device such as
/// `/dev/zero` or a huge file gets an error instead of a hang.
pub fn read_component_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    crate::paths::read_regular(path, MAX_COMPONENT_BYTES)
}

/// The shared sandbox machinery. Cheap to clone; every provider instance of a
/// process runs on the same engine.
#[derive(Clone)]
pub struct SandboxEngine {
    inner: Arc<EngineInner>,
}

struct EngineInner {
    engine: Engine,
    /// The creator holds them too; the engine's handle reads its count.
    #[cfg(target_os = "linux")]
    memories: Arc<super::memory::Memories>,
    linker: Linker<HostState>,
    cache: CompileCache,
    ticker: Ticker,
    workers: Workers,
}

/// A component pre-linked for the contract version it exports.
pub(crate) enum Pre {
    /// A `skillhost:provider@0.1.0` component.
    V0_1_0(v0_1_0::SkillProviderPre<HostState>),
    /// A `skillhost:provider@0.2.0` component.
    V0_2_0(v0_2_0::SkillProviderPre<HostState>),
    /// A `skillhost:provider@0.3.0` component.
    V0_3_0(v0_3_0::SkillProviderPre<HostState>),
}

/// A component compiled for this engine and pre-linked, ready to instantiate
/// in microseconds.
pub struct LoadedComponent {
    pre: Pre,
    contract: Contract,
    cache: CacheOutcome,
}

impl LoadedComponent {
    pub(crate) fn pre(&self) -> &Pre {
        &self.pre
    }

    /// The contract version the component exports.
    pub fn contract(&self) -> &Contract {
        &self.contract
    }

    /// Whether loading it hit the compile cache.
    pub fn cache_outcome(&self) -> &CacheOutcome {
        &self.cache
    }
}

fn linker(engine: &Engine) -> wasmtime::Result<Linker<HostState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    // Outgoing HTTP, gated per provider by its granted origins.
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    denied::shadow(&mut linker)?;
    wasi::shadow(&mut linker)?;
    // Every version's imports, each answered by the one implementation
    // (see `bindings`): a component links against the version it was built
    // for. Each interface is handed only its own view of the store.
    macro_rules! link_version {
        ($version:ident) => {{
            use $version::skillhost::provider::{files, host, types};
            types::add_to_linker::<_, HostData>(&mut linker, HostState::host_view)?;
            host::add_to_linker::<_, HostData>(&mut linker, HostState::host_view)?;
            files::add_to_linker::<_, FilesData>(&mut linker, HostState::files_view)?;
        }};
    }
    link_version!(v0_1_0);
    link_version!(v0_2_0);
    link_version!(v0_3_0);
    Ok(linker)
}

impl SandboxEngine {
    /// An engine whose compiled components are cached in `cache_dir` (none:
    /// compile in memory every time).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Self, Error> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(true);
        config.cranelift_opt_level(wasmtime::OptLevel::Speed);
        // Instances take their linear memory from memories kept from
        // instances that ended (wiped), not fresh pages (see `memory`).
        // Those are not wasmtime's own mappings, so data segments are copied
        // in at instantiation rather than mapped copy-on-write.
        #[cfg(target_os = "linux")]
        let memories = {
            let memories = Arc::new(super::memory::Memories::default());
            config.with_host_memory(Arc::new(super::memory::Creator(memories.clone())));
            config.memory_init_cow(false);
            memories
        };
        // `SKILLHOST_PERFMAP=1` names guest code in `perf` profiles.
        if std::env::var_os("SKILLHOST_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config).map_err(Error::engine)?;
        let linker = linker(&engine).map_err(Error::engine)?;
        let ticker = Ticker::start(engine.clone())
            .map_err(|e| Error::Engine(format!("cannot start the epoch ticker thread: {e}")))?;
        Ok(SandboxEngine {
            inner: Arc::new(EngineInner {
                engine,
                #[cfg(target_os = "linux")]
                memories,
                linker,
                cache: CompileCache::new(cache_dir),
                ticker,
                workers: Workers::new(MAX_WORKERS),
            }),
        })
    }

    /// The worker threads every instance on this engine shares for the
    /// host's side work, and the switches of the speedups they run.
    pub fn workers(&self) -> &Workers {
        &self.inner.workers
    }

    /// The wasmtime engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// How many instances so far ran in a memory an ended instance left
    /// (wiped); always 0 where memories are not kept (outside Linux).
    pub fn memories_reused(&self) -> u64 {
        #[cfg(target_os = "linux")]
        return self.inner.memories.reused();
        #[cfg(not(target_os = "linux"))]
        0
    }

    /// The compile cache.
    pub fn cache(&self) -> &CompileCache {
        &self.inner.cache
    }

    /// Compiles (or loads from the cache) and pre-links a provider component.
    pub fn load(&self, bytes: &[u8]) -> Result<LoadedComponent, Error> {
        let (component, cache) = self.compile(bytes)?;
        let (pre, contract) = self.link(&component).map_err(Error::Component)?;
        Ok(LoadedComponent {
            pre,
            contract,
            cache,
        })
    }

    /// The contract version a compiled component exports, or an error
    /// naming the versions this host runs.
    pub(crate) fn contract_of(&self, component: &Component) -> Result<Contract, Error> {
        let ty = component.component_type();
        let names: Vec<String> = ty
            .exports(&self.inner.engine)
            .map(|(name, _)| name.to_string())
            .collect();
        versions::contract_of(names.iter().map(String::as_str))
    }

    /// Compiles (or loads from the cache) a component, without linking it.
    pub(crate) fn compile(&self, bytes: &[u8]) -> Result<(Component, CacheOutcome), Error> {
        self.inner
            .cache
            .load(&self.inner.engine, bytes)
            .map_err(|e| Error::Component(format!("not a valid provider component: {e:#}")))
    }

    /// Pre-links a compiled component against every import the host
    /// provides; the error says which import is missing or mistyped.
    pub(crate) fn link(&self, component: &Component) -> Result<(Pre, Contract), String> {
        // Imports first: a component the host cannot link is told which
        // import, whatever it exports.
        let pre = self
            .inner
            .linker
            .instantiate_pre(component)
            .map_err(|e| format!("{e:#}"))?;
        let contract = self.contract_of(component).map_err(|e| e.to_string())?;
        let typed = match contract.version.as_str() {
            "0.1.0" => v0_1_0::SkillProviderPre::new(pre).map(Pre::V0_1_0),
            "0.2.0" => v0_2_0::SkillProviderPre::new(pre).map(Pre::V0_2_0),
            "0.3.0" => v0_3_0::SkillProviderPre::new(pre).map(Pre::V0_3_0),
            other => return Err(format!("this host has no bindings of version {other}")),
        };
        let typed = typed.map_err(|e| {
            format!("the component does not fit the {contract} contract it exports: {e:#}")
        })?;
        Ok((typed, contract))
    }

    /// Keeps the epoch ticking while the returned guard lives.
    pub(crate) fn ticking(&self) -> TickGuard<'_> {
        self.inner.ticker.enter()
    }
}
