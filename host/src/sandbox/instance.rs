//! One live provider instance in its own `Store`: a WASI context with only
//! the granted mounts, the memory cap, a deadline on every call, and the
//! classification of whatever goes wrong inside.
//!
//! After any fault the instance is dead ("cannot enter component
//! instance"): the caller drops it and starts a fresh one from the
//! pre-linked component, which takes microseconds.

use super::bindings::v0_1_0::SkillProvider;
use super::bindings::v0_1_0::types::ProviderConfig;
use super::engine::{LoadedComponent, SandboxEngine};
use super::fault::{DeadlineExceeded, Fault, FaultKind, classify};
use super::grants::Grants;
use super::imports::files::{FilesCtx, Mounts};
use super::imports::host::HostCtx;
use super::imports::http::HttpCtx;
use super::limits::{Limiter, Limits, MAX_CALL_BYTES, MAX_RESOURCES};
use super::refusals::Refusals;
use super::state::{CallClock, HostState, Stdio};
use super::{InstanceId, Upcalls};
use std::sync::Arc;
use std::time::Instant;
use wasmtime::component::ResourceTable;
use wasmtime::{Store, UpdateDeadline};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder};

/// What an instance is started with.
pub(crate) struct Start<'a> {
    /// The engine it runs on.
    pub engine: &'a SandboxEngine,
    /// Its component.
    pub component: &'a LoadedComponent,
    /// Exactly what it may touch.
    pub grants: Arc<Grants>,
    /// Its limits.
    pub limits: Limits,
    /// Where its refused attempts are noted (shared by its restarts).
    pub refusals: Refusals,
    /// Where what it reports upward goes.
    pub upcalls: Arc<dyn Upcalls>,
    /// Its identity: callbacks count only while it is the live instance.
    pub id: InstanceId,
    /// What its `init` receives.
    pub config: &'a ProviderConfig,
}

/// A live provider instance.
pub(crate) struct Instance {
    store: Store<HostState>,
    bindings: SkillProvider,
    engine: SandboxEngine,
}

/// The WASI context: the grant's mounts preopened read-only, no network,
/// stdio captured; and the same mounts opened for the `files` capability.
fn wasi(grants: &Grants, refusals: &Refusals, stdio: &Stdio, provider: &str) -> (WasiCtx, Mounts) {
    let mut wasi = WasiCtxBuilder::new();
    let socket_refusals = refusals.clone();
    // Synchronous calls on the caller's thread: no executor hop per
    // filesystem call (measured 3-5x faster than the default).
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
        .stdout(stdio.stdout.clone())
        .stderr(stdio.stderr.clone());
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
                tracing::debug!(provider, mount = %mount.host.display(), error = %e, "mount skipped");
                mounts.absent(&mount.guest);
            }
        }
    }
    for root in grants.roots.iter().filter(|r| !r.present) {
        mounts.absent(&root.guest);
    }
    (wasi.build(), mounts)
}

/// A store with the cap and the deadline check installed.
fn store(engine: &SandboxEngine, start: &Start<'_>) -> Store<HostState> {
    let stdio = Stdio::new();
    let provider = start.upcalls.provider_id();
    let (wasi, mounts) = wasi(&start.grants, &start.refusals, &stdio, provider);
    let mut table = ResourceTable::new();
    // Every descriptor, stream and HTTP request the guest holds is an
    // entry: a full table refuses (traps) instead of the host running out.
    table.set_max_capacity(MAX_RESOURCES);
    let state = HostState {
        wasi,
        table,
        call: CallClock::new(start.limits.deadline),
        limiter: Limiter::new(start.limits.memory_bytes),
        host: HostCtx::new(
            start.id,
            start.upcalls.clone(),
            start.limits.max_invalidations_per_second,
        ),
        files: FilesCtx::new(mounts),
        http: HttpCtx::new(&start.grants.origins, start.refusals.clone()),
        grants: start.grants.clone(),
        refusals: start.refusals.clone(),
        stdio,
    };
    let mut store = Store::new(engine.engine(), state);
    // The limiter's counts are read here, once.
    store.limiter(|state| &mut state.limiter);
    store.set_hostcall_fuel(MAX_CALL_BYTES);
    store.epoch_deadline_callback(|ctx| {
        if Instant::now() >= ctx.data().call.deadline {
            Err(DeadlineExceeded.into())
        } else {
            Ok(UpdateDeadline::Continue(1))
        }
    });
    store
}

impl Instance {
    /// Instantiates the component with exactly its grants, and calls its
    /// `init`.
    pub(crate) fn start(start: Start<'_>) -> Result<Instance, Fault> {
        let engine = start.engine;
        let mut store = store(engine, &start);
        let bindings = {
            let _ticking = engine.ticking();
            store.data_mut().call.restart();
            store.set_epoch_deadline(1);
            start.component.pre().instantiate(&mut store).map_err(|e| {
                let fault = classify(e, store.data());
                Fault::new(FaultKind::Init, format!("instantiation failed: {fault}"))
            })?
        };
        let mut started = Instance {
            store,
            bindings,
            engine: engine.clone(),
        };
        match started.call(|b, s| b.skillhost_provider_provider().call_init(s, start.config)) {
            Ok(Ok(())) => Ok(started),
            Ok(Err(e)) => Err(Fault::new(FaultKind::Init, format!("init refused: {e:?}"))),
            Err(fault) => Err(Fault::new(fault.kind, format!("init: {}", fault.message))),
        }
    }

    /// Runs one export under the deadline.
    pub(crate) fn call<R>(
        &mut self,
        f: impl FnOnce(&SkillProvider, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Fault> {
        let _ticking = self.engine.ticking();
        self.store.data_mut().call.restart();
        self.store.set_epoch_deadline(1);
        let result = f(&self.bindings, &mut self.store).map_err(|e| classify(e, self.store.data()));
        self.store.data_mut().end_call();
        result
    }

    /// A number no other instance in this process has.
    pub(crate) fn id(&self) -> InstanceId {
        self.store.data().host.instance()
    }

    /// Bytes of linear memory the instance has grown to (memories never
    /// shrink, so this only rises).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.store.data().limiter.memory_total()
    }

    /// The grants this instance was started with.
    pub(crate) fn grants(&self) -> &Arc<Grants> {
        &self.store.data().grants
    }
}
