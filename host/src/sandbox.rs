//! One provider instance in its own `Store`: WASI context with only the
//! granted mounts, a memory cap, a deadline on every call, and the
//! classification of whatever goes wrong inside.

use crate::bindings::SkillProvider;
use crate::bindings::types::ProviderConfig;
use crate::capabilities::Grants;
use crate::engine::{LoadedComponent, SandboxEngine};
use crate::files::Mounts;
use crate::http_access::HttpGate;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime::{ResourceLimiter, Store, UpdateDeadline};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

/// Bytes of a guest's stderr kept to explain a crash.
const STDERR_CAPACITY: usize = 16 * 1024;

/// Resource limits for one provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest linear memory the provider may grow to, in bytes.
    pub memory_bytes: usize,
    /// Longest any single call may run.
    pub deadline: Duration,
    /// Most `invalidate-provider` calls per second before the provider is
    /// stopped as a flood.
    pub max_invalidations_per_second: u32,
    /// Wait before restarting after a first fault; doubles with each fault
    /// in a row.
    pub restart_initial: Duration,
    /// Longest wait before a restart.
    pub restart_max: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 128 * 1024 * 1024,
            deadline: Duration::from_secs(5),
            max_invalidations_per_second: 100,
            restart_initial: Duration::from_millis(100),
            restart_max: Duration::from_secs(30),
        }
    }
}

/// Why a provider call failed inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// The call ran past its deadline and was stopped.
    Deadline,
    /// The provider tried to grow its memory past the cap.
    Memory,
    /// The provider overflowed its stack.
    Stack,
    /// The provider trapped (a panic, `unreachable`, a bad access).
    Trap,
    /// The component could not be instantiated or refused to initialise.
    Init,
    /// The provider called `invalidate-provider` faster than allowed.
    Flood,
    /// The provider tried to pass more data across the boundary than
    /// wasmtime allows in one call.
    Size,
}

impl FaultKind {
    /// A one-word tag for diagnostics and JSON: `deadline`, `memory`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            FaultKind::Deadline => "deadline",
            FaultKind::Memory => "memory",
            FaultKind::Stack => "stack",
            FaultKind::Trap => "trap",
            FaultKind::Init => "init",
            FaultKind::Flood => "flood",
            FaultKind::Size => "size",
        }
    }
}

/// A failed call: its kind and what the guest or wasmtime said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The class of failure.
    pub kind: FaultKind,
    /// Details, including the tail of the guest's stderr when there is one.
    pub message: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// What a provider's host imports signal to the registry. Shared by the
/// provider handle and every instance it creates; an instance's calls count
/// only while it is the live one (identity, not name: SPEC C4).
#[derive(Debug)]
pub struct ProviderSignals {
    id: String,
    dirty: AtomicBool,
    rescan: AtomicBool,
    generation: AtomicU64,
    live_instance: AtomicU64,
    disposed: AtomicBool,
    notify: Mutex<Option<Sender<()>>>,
}

static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

impl ProviderSignals {
    /// Signals for provider `id`, initially dirty (never observed).
    pub fn new(id: &str) -> Arc<Self> {
        Arc::new(ProviderSignals {
            id: id.to_string(),
            dirty: AtomicBool::new(true),
            rescan: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            live_instance: AtomicU64::new(0),
            disposed: AtomicBool::new(false),
            notify: Mutex::new(None),
        })
    }

    /// The provider's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Marks the provider dirty from outside: the host cannot say what
    /// changed, so the next snapshot asks the provider to verify everything.
    pub fn invalidate(&self) {
        if self.disposed.load(Ordering::Acquire) {
            return;
        }
        self.rescan.store(true, Ordering::Release);
        self.changed();
    }

    /// Marks the provider dirty because it said so itself (it already knows
    /// what changed) and bumps its generation.
    fn changed(&self) {
        if self.disposed.load(Ordering::Acquire) {
            return;
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.dirty.store(true, Ordering::Release);
        // Only a message: listeners run on the registry's notifier thread,
        // never inside a guest call.
        if let Some(tx) = self
            .notify
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            let _ = tx.send(());
        }
    }

    /// Where change notifications go (the registry's notifier), or nowhere.
    pub fn set_notify(&self, tx: Option<Sender<()>>) {
        *self.notify.lock().unwrap_or_else(|p| p.into_inner()) = tx;
    }

    /// Whether the provider must be asked again.
    pub fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    /// Marks the provider dirty because its instance was replaced (the
    /// host's view of it is stale), without asking for a blind rescan.
    pub fn mark_stale(&self) {
        self.changed();
    }

    /// Marks the provider dirty because it faulted (outside a snapshot):
    /// listeners learn that its view must be asked again, incomplete.
    pub fn faulted(&self) {
        if self.disposed.load(Ordering::Acquire) {
            return;
        }
        self.dirty.store(true, Ordering::Release);
        if let Some(tx) = self
            .notify
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            let _ = tx.send(());
        }
    }

    /// Keeps the provider dirty without counting an invalidation: an
    /// incomplete observation is asked again next time, but is not a change.
    pub fn retry_later(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// Clears the dirty mark before asking; returns the generation then and
    /// whether a rescan was requested.
    pub fn begin_observation(&self) -> (u64, bool) {
        self.dirty.store(false, Ordering::Release);
        let rescan = self.rescan.swap(false, Ordering::AcqRel);
        (self.generation.load(Ordering::Acquire), rescan)
    }

    /// The current generation (bumped by every invalidation).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the provider was disposed (removed from its registry).
    pub fn is_disposed(&self) -> bool {
        self.disposed.load(Ordering::Acquire)
    }

    /// Makes every later signal a no-op.
    pub fn dispose(&self) {
        self.disposed.store(true, Ordering::Release);
        self.live_instance.store(0, Ordering::Release);
        self.set_notify(None);
    }

    fn invalidate_from(&self, instance: u64) {
        if self.live_instance.load(Ordering::Acquire) == instance {
            self.changed();
        }
    }
}

/// A path a provider asked the host to watch (keyed by its guest path; the
/// grants translate it when a watcher needs the host path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRequest {
    /// How many levels of subfolders are watched too (0: the folder alone).
    pub depth: u32,
}

/// The data of one provider's `Store`.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: Limiter,
    call_deadline: Instant,
    call_budget: Duration,
    pub(crate) instance: u64,
    pub(crate) signals: Arc<ProviderSignals>,
    pub(crate) grants: Arc<Grants>,
    pub(crate) watches: BTreeMap<String, WatchRequest>,
    pub(crate) mounts: Mounts,
    /// Files the current call announced it will read, being read ahead.
    pub(crate) prefetch: Option<crate::prefetch::Prefetch>,
    pub(crate) prefetches_this_call: u32,
    pub(crate) refusals: Refusals,
    http: WasiHttpCtx,
    http_gate: HttpGate,
    invalidations: (Instant, u32),
    max_invalidations_per_second: u32,
    stderr: MemoryOutputPipe,
    stdout: MemoryOutputPipe,
}

/// What a provider tried and was refused (capabilities it was not granted),
/// kept for diagnostics: distinct messages, at most [`MAX_REFUSALS`].
#[derive(Debug, Clone, Default)]
pub struct Refusals(Arc<Mutex<Vec<String>>>);

/// Most distinct refusals remembered per provider.
pub const MAX_REFUSALS: usize = 32;

impl Refusals {
    /// Records a refusal (once per distinct message).
    pub fn record(&self, message: String) {
        let mut list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !list.contains(&message) && list.len() < MAX_REFUSALS {
            tracing::warn!(%message, "a provider was refused a capability");
            list.push(message);
        }
    }

    /// Everything recorded so far.
    pub fn list(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The error that stops a provider flooding `invalidate-provider`.
#[derive(Debug)]
pub(crate) struct Flooded(pub u32);

impl std::fmt::Display for Flooded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more than {} invalidate-provider calls in a second",
            self.0
        )
    }
}

impl std::error::Error for Flooded {}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        self.http_gate.deadline = Some(self.call_deadline);
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.http_gate,
        }
    }
}

impl HostState {
    /// The provider's id, for logs.
    pub fn provider_id(&self) -> &str {
        self.signals.id()
    }

    /// Counts an `invalidate-provider` call; a flood is an error that
    /// stops the provider.
    pub(crate) fn invalidate(&mut self) -> Result<(), Flooded> {
        let now = Instant::now();
        let (since, count) = &mut self.invalidations;
        if now.duration_since(*since) >= Duration::from_secs(1) {
            *since = now;
            *count = 0;
        }
        *count += 1;
        if *count > self.max_invalidations_per_second {
            return Err(Flooded(self.max_invalidations_per_second));
        }
        self.signals.invalidate_from(self.instance);
        Ok(())
    }

    /// When the call in progress must end.
    pub(crate) fn call_deadline(&self) -> Instant {
        self.call_deadline
    }
}

/// Enforces the memory cap and remembers that it did, so the failure can be
/// reported as `memory` rather than as a generic trap.
struct Limiter {
    memory_bytes: usize,
    exceeded: bool,
}

#[derive(Debug)]
struct MemoryCapExceeded {
    desired: usize,
    cap: usize,
}

impl std::fmt::Display for MemoryCapExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "memory grow to {} bytes refused: the cap is {} bytes",
            self.desired, self.cap
        )
    }
}

impl std::error::Error for MemoryCapExceeded {}

#[derive(Debug)]
struct DeadlineExceeded;

impl std::fmt::Display for DeadlineExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the call ran past its deadline")
    }
}

impl std::error::Error for DeadlineExceeded {}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.exceeded = true;
            return Err(MemoryCapExceeded {
                desired,
                cap: self.memory_bytes,
            }
            .into());
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Tables hold function references; a provider needs a few thousand.
        Ok(desired <= 100_000)
    }
}

/// A live provider instance.
pub struct Instance {
    store: Store<HostState>,
    bindings: SkillProvider,
    engine: SandboxEngine,
    limits: Limits,
}

impl Instance {
    /// Instantiates `component` with exactly `grants`, and calls its `init`.
    pub fn start(
        engine: &SandboxEngine,
        component: &LoadedComponent,
        grants: Arc<Grants>,
        signals: Arc<ProviderSignals>,
        limits: Limits,
        refusals: Refusals,
        config: &ProviderConfig,
    ) -> Result<Instance, Fault> {
        let init_fault = |message: String| Fault {
            kind: FaultKind::Init,
            message,
        };
        let stderr = MemoryOutputPipe::new(STDERR_CAPACITY);
        let stdout = MemoryOutputPipe::new(STDERR_CAPACITY);
        let mut wasi = WasiCtxBuilder::new();
        let socket_refusals = refusals.clone();
        // Synchronous calls on the caller's thread: no executor hop per
        // filesystem call (measured 3-5x faster than the default). No
        // network: every socket address is refused, and noted.
        wasi.allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(move |addr, usage| {
                socket_refusals.record(format!(
                    "opened a socket ({usage:?} {addr}): refused, no network is granted"
                ));
                Box::pin(async { false })
            })
            .stdout(stdout.clone())
            .stderr(stderr.clone());
        let mut mounts = Mounts::default();
        for mount in &grants.mounts {
            let opened = wasi
                .preopened_dir(&mount.host, &mount.guest, FsPerms::ReadOnly)
                .map_err(|e| e.to_string())
                .and_then(|_| {
                    cap_std::fs::Dir::open_ambient_dir(&mount.host, cap_std::ambient_authority())
                        .map_err(|e| e.to_string())
                });
            match opened {
                Ok(dir) => mounts.push(&mount.guest, dir),
                // The folder vanished since the grant was made; the provider
                // sees it as missing and the next grant notices.
                Err(e) => {
                    tracing::debug!(provider = signals.id(), mount = %mount.host.display(), error = %e, "mount skipped");
                    mounts.absent(&mount.guest);
                }
            }
        }
        for root in grants.roots.iter().filter(|r| !r.present) {
            mounts.absent(&root.guest);
        }
        let instance = NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed);
        let http_gate = HttpGate::new(&grants.origins, refusals.clone());
        let state = HostState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            limiter: Limiter {
                memory_bytes: limits.memory_bytes,
                exceeded: false,
            },
            call_deadline: Instant::now() + limits.deadline,
            call_budget: limits.deadline,
            instance,
            signals: signals.clone(),
            grants,
            watches: BTreeMap::new(),
            mounts,
            prefetch: None,
            prefetches_this_call: 0,
            http: WasiHttpCtx::new(),
            http_gate,
            refusals,
            invalidations: (Instant::now(), 0),
            max_invalidations_per_second: limits.max_invalidations_per_second,
            stderr,
            stdout,
        };
        let mut store = Store::new(engine.engine(), state);
        store.limiter(|state| &mut state.limiter);
        store.epoch_deadline_callback(|ctx| {
            if Instant::now() >= ctx.data().call_deadline {
                Err(DeadlineExceeded.into())
            } else {
                Ok(UpdateDeadline::Continue(1))
            }
        });
        let ticking = engine.ticking();
        store.data_mut().call_deadline = Instant::now() + limits.deadline;
        store.set_epoch_deadline(1);
        let bindings = match component.pre().instantiate(&mut store) {
            Ok(b) => b,
            Err(e) => {
                let fault = classify(e, store.data());
                return Err(init_fault(format!("instantiation failed: {fault}")));
            }
        };
        drop(ticking);
        signals.live_instance.store(instance, Ordering::Release);
        let mut started = Instance {
            store,
            bindings,
            engine: engine.clone(),
            limits,
        };
        match started.call(|b, s| b.skillhost_provider_provider().call_init(s, config)) {
            Ok(Ok(())) => Ok(started),
            Ok(Err(e)) => Err(init_fault(format!("init refused: {e:?}"))),
            Err(fault) => Err(Fault {
                kind: fault.kind,
                message: format!("init: {}", fault.message),
            }),
        }
    }

    /// Runs one export under the deadline. After a fault the instance is
    /// dead ("cannot enter component instance"): drop it and start anew.
    pub fn call<R>(
        &mut self,
        f: impl FnOnce(&SkillProvider, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Fault> {
        let _ticking = self.engine.ticking();
        self.store.data_mut().call_deadline = Instant::now() + self.limits.deadline;
        self.store.set_epoch_deadline(1);
        let result = f(&self.bindings, &mut self.store).map_err(|e| classify(e, self.store.data()));
        // Nothing read ahead outlives the call it was read for.
        let state = self.store.data_mut();
        state.prefetch = None;
        state.prefetches_this_call = 0;
        let state = self.store.data();
        let written = state.stdout.contents();
        if !written.is_empty() {
            let text = String::from_utf8_lossy(&written[..written.len().min(200)])
                .trim()
                .to_string();
            state.refusals.record(format!(
                "wrote to stdout, which is not granted (it began {text:?})"
            ));
        }
        result
    }

    /// The paths the instance asked the host to watch.
    pub fn watches(&self) -> &BTreeMap<String, WatchRequest> {
        &self.store.data().watches
    }

    /// A number no other instance in this process has.
    pub fn id(&self) -> u64 {
        self.store.data().instance
    }

    /// The grants this instance was started with.
    pub fn grants(&self) -> &Arc<Grants> {
        &self.store.data().grants
    }
}

fn classify(error: wasmtime::Error, state: &HostState) -> Fault {
    let stderr = state.stderr.contents();
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(1024)..])
        .trim()
        .to_string();
    let with_tail = |message: String| {
        if tail.is_empty() {
            message
        } else {
            format!("{message} (stderr: {tail})")
        }
    };
    if let Some(flood) = error.downcast_ref::<Flooded>() {
        return Fault {
            kind: FaultKind::Flood,
            message: flood.to_string(),
        };
    }
    if format!("{error:#}").contains("fuel allocated for hostcalls has been exhausted") {
        return Fault {
            kind: FaultKind::Size,
            message: with_tail(
                "tried to pass more data across the boundary than one call may".to_string(),
            ),
        };
    }
    if error.downcast_ref::<DeadlineExceeded>().is_some() {
        return Fault {
            kind: FaultKind::Deadline,
            message: format!("stopped after the {:?} deadline", state.call_budget),
        };
    }
    if state.limiter.exceeded || error.downcast_ref::<MemoryCapExceeded>().is_some() {
        return Fault {
            kind: FaultKind::Memory,
            message: with_tail(format!(
                "exceeded the {} byte memory cap",
                state.limiter.memory_bytes
            )),
        };
    }
    if let Some(trap) = error.downcast_ref::<wasmtime::Trap>() {
        let kind = match trap {
            wasmtime::Trap::StackOverflow => FaultKind::Stack,
            wasmtime::Trap::Interrupt => FaultKind::Deadline,
            _ => FaultKind::Trap,
        };
        return Fault {
            kind,
            message: with_tail(trap.to_string()),
        };
    }
    Fault {
        kind: FaultKind::Trap,
        message: with_tail(format!("{error:#}")),
    }
}
