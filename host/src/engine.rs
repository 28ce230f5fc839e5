//! The one wasmtime `Engine`, its `Linker`, the epoch ticker that enforces
//! call deadlines, and component loading through the compile cache.

use crate::bindings::{SkillProvider, SkillProviderPre};
use crate::compile_cache::{CacheOutcome, CompileCache, hex};
use crate::error::Error;
use crate::sandbox::HostState;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::thread::{self, Thread};
use std::time::Duration;
use wasmtime::component::{HasSelf, Linker, Val};
use wasmtime::{Config, Engine};

/// How often the epoch advances while a provider call is running. Deadlines
/// are checked against the real clock on every tick, so a call overruns its
/// deadline by at most about one tick.
pub const TICK: Duration = Duration::from_millis(1);

/// The shared sandbox machinery. Cheap to clone; every provider instance of a
/// process runs on the same engine.
#[derive(Clone)]
pub struct SandboxEngine {
    inner: Arc<EngineInner>,
}

struct EngineInner {
    engine: Engine,
    linker: Linker<HostState>,
    cache: CompileCache,
    ticker: Ticker,
}

/// A component compiled for this engine and pre-linked, ready to instantiate
/// in microseconds.
pub struct LoadedComponent {
    pre: SkillProviderPre<HostState>,
    digest: String,
    cache: CacheOutcome,
}

impl LoadedComponent {
    /// The pre-linked component.
    pub fn pre(&self) -> &SkillProviderPre<HostState> {
        &self.pre
    }

    /// `sha256:<hex>` of the component's bytes.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Whether loading it hit the compile cache.
    pub fn cache_outcome(&self) -> &CacheOutcome {
        &self.cache
    }
}

impl SandboxEngine {
    /// An engine whose compiled components are cached in `cache_dir` (none:
    /// compile in memory every time).
    pub fn new(cache_dir: Option<std::path::PathBuf>) -> Result<Self, Error> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(true);
        config.cranelift_opt_level(wasmtime::OptLevel::Speed);
        // `SKILLHOST_PERFMAP=1` names guest code in `perf` profiles.
        if std::env::var_os("SKILLHOST_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config).map_err(Error::engine)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(Error::engine)?;
        // Outgoing HTTP, gated per provider by its granted origins.
        wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker).map_err(Error::engine)?;
        // No environment is granted; a provider that asks gets nothing, and
        // the attempt is noted for its diagnostics.
        linker.allow_shadowing(true);
        linker
            .instance("wasi:cli/environment@0.2.12")
            .and_then(|mut environment| {
                environment.func_wrap(
                    "get-environment",
                    |store: wasmtime::StoreContextMut<'_, HostState>, (): ()| {
                        store
                            .data()
                            .refusals
                            .record("read its environment variables: none are granted".to_string());
                        Ok((Vec::<(String, String)>::new(),))
                    },
                )
            })
            .map_err(Error::engine)?;
        // No network either: creating a socket or resolving a name is
        // refused before any socket exists, and noted.
        for (interface, function, what) in [
            (
                "wasi:sockets/tcp-create-socket@0.2.12",
                "create-tcp-socket",
                "open a TCP socket",
            ),
            (
                "wasi:sockets/udp-create-socket@0.2.12",
                "create-udp-socket",
                "open a UDP socket",
            ),
            (
                "wasi:sockets/ip-name-lookup@0.2.12",
                "resolve-addresses",
                "resolve a host name",
            ),
        ] {
            linker
                .instance(interface)
                .and_then(|mut instance| {
                    instance.func_new(function, move |store, _ty, _params, results| {
                        store
                            .data()
                            .refusals
                            .record(format!("tried to {what}: refused, no network is granted"));
                        results[0] = Val::Result(Err(Some(Box::new(Val::Enum(
                            "access-denied".to_string(),
                        )))));
                        Ok(())
                    })
                })
                .map_err(Error::engine)?;
        }
        linker.allow_shadowing(false);
        SkillProvider::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state)
            .map_err(Error::engine)?;
        let ticker = Ticker::start(engine.clone())
            .map_err(|e| Error::Engine(format!("cannot start the epoch ticker thread: {e}")))?;
        Ok(SandboxEngine {
            inner: Arc::new(EngineInner {
                engine,
                linker,
                cache: CompileCache::new(cache_dir),
                ticker,
            }),
        })
    }

    /// The wasmtime engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The compile cache.
    pub fn cache(&self) -> &CompileCache {
        &self.inner.cache
    }

    /// Compiles (or loads from the cache) and pre-links a provider component.
    pub fn load(&self, bytes: &[u8]) -> Result<LoadedComponent, Error> {
        let (component, cache) = self
            .inner
            .cache
            .load(&self.inner.engine, bytes)
            .map_err(|e| Error::Component(format!("not a valid provider component: {e}")))?;
        let pre = self
            .inner
            .linker
            .instantiate_pre(&component)
            .and_then(SkillProviderPre::new)
            .map_err(|e| {
                Error::Component(format!(
                    "the component does not fit the skillhost:provider@0.1.0 contract: {e}"
                ))
            })?;
        Ok(LoadedComponent {
            pre,
            digest: format!("sha256:{}", hex(&Sha256::digest(bytes))),
            cache,
        })
    }

    /// Keeps the epoch ticking while the returned guard lives.
    pub(crate) fn ticking(&self) -> TickGuard<'_> {
        self.inner.ticker.enter()
    }
}

/// Advances the engine's epoch every [`TICK`] while at least one call is in
/// flight, and sleeps otherwise, so an idle host costs no wake-ups.
struct Ticker {
    shared: Arc<TickerShared>,
    thread: Thread,
}

struct TickerShared {
    active: AtomicUsize,
    stop: AtomicBool,
}

/// Marks one provider call in flight.
pub(crate) struct TickGuard<'a> {
    ticker: &'a Ticker,
}

impl Ticker {
    fn start(engine: Engine) -> std::io::Result<Ticker> {
        let shared = Arc::new(TickerShared {
            active: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let weak: Weak<TickerShared> = Arc::downgrade(&shared);
        let handle = thread::Builder::new()
            .name("skillhost-epoch".into())
            .spawn(move || {
                loop {
                    let Some(shared) = weak.upgrade() else { return };
                    if shared.stop.load(Ordering::Acquire) {
                        return;
                    }
                    let idle = shared.active.load(Ordering::Acquire) == 0;
                    drop(shared);
                    if idle {
                        thread::park();
                    } else {
                        thread::sleep(TICK);
                        engine.increment_epoch();
                    }
                }
            })
            .map(|h| h.thread().clone())?;
        Ok(Ticker {
            shared,
            thread: handle,
        })
    }

    fn enter(&self) -> TickGuard<'_> {
        if self.shared.active.fetch_add(1, Ordering::AcqRel) == 0 {
            self.thread.unpark();
        }
        TickGuard { ticker: self }
    }
}

impl Drop for TickGuard<'_> {
    fn drop(&mut self) {
        self.ticker.shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.thread.unpark();
    }
}
