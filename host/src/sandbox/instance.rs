//! One live provider instance in its own `Store`: a WASI context with only
//! the granted mounts, the memory cap, a deadline on every call, and the
//! classification of whatever goes wrong inside.
//!
//! After any fault the instance is dead ("cannot enter component
//! instance"): the caller drops it and starts a fresh one from the
//! pre-linked component, which takes microseconds.

use super::bindings::{v0_1_0, v0_2_0, v0_3_0};
use super::contract as wit;
use super::engine::{LoadedComponent, Pre, SandboxEngine};
use super::fault::{DeadlineExceeded, Fault, FaultKind};
use super::grants::Grants;
use super::imports::files::{FilesCtx, Listed, Mounts};
use super::imports::host::{Ahead, HostCtx};
use super::imports::http::HttpCtx;
use super::limits::{Limiter, Limits, MAX_CALL_BYTES, MAX_HANDLES};
use super::refusals::{Refusals, Refused};
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
    /// What its `init` receives; `None`: do not call `init` (the instance
    /// is only asked for its manifest).
    pub config: Option<&'a wit::ProviderConfig>,
    /// The roots as the grant listed them: they answer the first call
    /// after `init` (see `imports/files/listing.rs`).
    pub listed: Listed,
}

/// An instance's exports, in the contract version it was built for.
enum Bindings {
    V0_1_0(v0_1_0::SkillProvider),
    V0_2_0(v0_2_0::SkillProvider),
    V0_3_0(v0_3_0::SkillProvider),
}

/// A live provider instance.
pub(crate) struct Instance {
    store: Store<HostState>,
    bindings: Bindings,
    engine: SandboxEngine,
}

/// One export's answer: the provider's own result, or the fault that
/// stopped it.
pub(crate) type Answer<T> = Result<Result<T, wit::ProviderError>, Fault>;

/// The WASI context: the grant's mounts preopened read-only, no network,
/// stdio captured; and the same mounts opened for the `files` capability.
fn wasi(grants: &Grants, refusals: &Refusals, stdio: &Stdio, provider: &str) -> (WasiCtx, Mounts) {
    let mut wasi = WasiCtxBuilder::new();
    let socket_refusals = refusals.clone();
    // Synchronous calls on the caller's thread: a provider makes many small
    // filesystem calls, and an executor hop for each costs more than the call.
    wasi.allow_blocking_current_thread(true)
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .socket_addr_check(move |addr, usage| {
            socket_refusals.record(
                Refused::Socket,
                format!("opened a socket ({usage:?} {addr}): refused, no network is granted"),
            );
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
    table.set_max_capacity(MAX_HANDLES);
    let state = HostState {
        wasi,
        table,
        call: CallClock::new(start.limits.deadline),
        limiter: Limiter::new(start.limits.memory_bytes),
        host: HostCtx::new(
            start.id,
            start.upcalls.clone(),
            start.limits.max_invalidations_per_second,
            start.listed.since(),
        ),
        files: FilesCtx::new(mounts, engine.workers().clone()),
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
            let made = match start.component.pre() {
                Pre::V0_1_0(pre) => pre.instantiate(&mut store).map(Bindings::V0_1_0),
                Pre::V0_2_0(pre) => pre.instantiate(&mut store).map(Bindings::V0_2_0),
                Pre::V0_3_0(pre) => pre.instantiate(&mut store).map(Bindings::V0_3_0),
            };
            made.map_err(|e| {
                let fault = store.data().fault(e);
                Fault::new(FaultKind::Init, format!("instantiation failed: {fault}"))
            })?
        };
        let mut started = Instance {
            store,
            bindings,
            engine: engine.clone(),
        };
        let Some(config) = start.config else {
            started
                .store
                .data_mut()
                .files
                .answer_first_listings(start.listed);
            return Ok(started);
        };
        let answer = started.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_init(s, &config.into())
                .map(|r| r.map_err(Into::into)),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_init(s, &config.into())
                .map(|r| r.map_err(Into::into)),
            Bindings::V0_3_0(b) => b.skillhost_provider_provider().call_init(s, config),
        });
        match answer {
            Ok(Ok(())) => {
                started
                    .store
                    .data_mut()
                    .files
                    .answer_first_listings(start.listed);
                Ok(started)
            }
            Ok(Err(e)) => Err(Fault::new(FaultKind::Init, format!("init refused: {e:?}"))),
            Err(fault) => Err(Fault::new(fault.kind, format!("init: {}", fault.message))),
        }
    }

    /// Runs one export under the deadline.
    fn call<R>(
        &mut self,
        f: impl FnOnce(&Bindings, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Fault> {
        let _ticking = self.engine.ticking();
        self.store.data_mut().call.restart();
        self.store.set_epoch_deadline(1);
        let result = f(&self.bindings, &mut self.store).map_err(|e| self.store.data().fault(e));
        self.store.data_mut().end_call();
        result
    }

    /// What the provider wants granted; `None` for a 0.1.0 component, which
    /// declares nothing.
    pub(crate) fn manifest(&mut self) -> Result<Option<wit::ProviderManifest>, Fault> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(_) => Ok(None),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_manifest(s)
                .map(|m| Some(m.into())),
            Bindings::V0_3_0(b) => b.skillhost_provider_provider().call_manifest(s).map(Some),
        })
    }

    /// `snapshot`; the entries the provider sends ahead of its answer
    /// (`emit-skills`, from 0.2.0 on) go to `ahead` as they come.
    pub(crate) fn snapshot(
        &mut self,
        request: wit::SnapshotRequest,
        ahead: Ahead,
    ) -> Result<wit::Observation, Fault> {
        self.store.data_mut().host.open_ahead(ahead);
        let answer = self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_snapshot(s, request.into())
                .map(Into::into),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_snapshot(s, request.into())
                .map(Into::into),
            Bindings::V0_3_0(b) => b
                .skillhost_provider_provider()
                .call_snapshot(s, request)
                .map(Into::into),
        });
        self.store.data_mut().host.close_ahead();
        answer
    }

    /// `load`.
    pub(crate) fn load(&mut self, name: &str) -> Answer<wit::SkillDocument> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_load(s, name)
                .map(|r| r.map(Into::into).map_err(Into::into)),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_load(s, name)
                .map(|r| r.map(Into::into).map_err(Into::into)),
            Bindings::V0_3_0(b) => b
                .skillhost_provider_provider()
                .call_load(s, name)
                .map(|r| r.map(Into::into)),
        })
    }

    /// `list-resources`.
    pub(crate) fn list_resources(&mut self, name: &str) -> Answer<Vec<wit::Resource>> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_list_resources(s, name)
                .map(|r| {
                    r.map(|l| l.into_iter().map(Into::into).collect())
                        .map_err(Into::into)
                }),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_list_resources(s, name)
                .map(|r| {
                    r.map(|l| l.into_iter().map(Into::into).collect())
                        .map_err(Into::into)
                }),
            Bindings::V0_3_0(b) => b.skillhost_provider_provider().call_list_resources(s, name),
        })
    }

    /// `read-resource`.
    pub(crate) fn read_resource(&mut self, name: &str, path: &str) -> Answer<Vec<u8>> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource(s, name, path)
                .map(|r| r.map_err(Into::into)),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource(s, name, path)
                .map(|r| r.map_err(Into::into)),
            Bindings::V0_3_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource(s, name, path),
        })
    }

    /// `read-resource-range`. A 0.1.0 component has no ranged read: it
    /// reads the whole file and the range is cut from it here.
    pub(crate) fn read_resource_range(
        &mut self,
        name: &str,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Answer<Vec<u8>> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource(s, name, path)
                .map(|r| {
                    r.map(|bytes| cut_range(bytes, offset, len))
                        .map_err(Into::into)
                }),
            Bindings::V0_2_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource_range(s, name, path, offset, len)
                .map(|r| r.map_err(Into::into)),
            Bindings::V0_3_0(b) => b
                .skillhost_provider_provider()
                .call_read_resource_range(s, name, path, offset, len),
        })
    }

    /// `on-change`.
    pub(crate) fn on_change(&mut self, events: &[wit::ChangeEvent]) -> Result<(), Fault> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => {
                let events: Vec<_> = events.iter().map(Into::into).collect();
                b.skillhost_provider_provider().call_on_change(s, &events)
            }
            Bindings::V0_2_0(b) => {
                let events: Vec<_> = events.iter().map(Into::into).collect();
                b.skillhost_provider_provider().call_on_change(s, &events)
            }
            Bindings::V0_3_0(b) => b.skillhost_provider_provider().call_on_change(s, events),
        })
    }

    /// `observe`.
    pub(crate) fn observe(&mut self, paths: &[String]) -> Result<(), Fault> {
        self.call(|b, s| match b {
            Bindings::V0_1_0(b) => b.skillhost_provider_provider().call_observe(s, paths),
            Bindings::V0_2_0(b) => b.skillhost_provider_provider().call_observe(s, paths),
            Bindings::V0_3_0(b) => b.skillhost_provider_provider().call_observe(s, paths),
        })
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

/// Bytes `offset..offset + len` of `bytes` (fewer at its end, none past it).
fn cut_range(bytes: Vec<u8>, offset: u64, len: u64) -> Vec<u8> {
    bytes[skillhost_skill::reads::range_within(bytes.len(), offset, len)].to_vec()
}
