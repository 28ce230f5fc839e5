//! A provider's live instance: started on first use, started again when a
//! root appears or vanishes (the grant must change), dropped after a fault
//! and restarted only once its backoff has passed.

use super::{Provider, ProviderSpec};
use crate::sandbox::bindings::latest::types::ProviderConfig;
use crate::sandbox::{Fault, Grants, Instance, InstanceId, Listed, Start};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Provider {
    /// Runs `f` on the live instance, starting one if needed. A fault kills
    /// the instance; the next call starts a fresh one from the pre-linked
    /// component.
    ///
    /// Watches the call asked for are installed before this returns, so
    /// a change made after it is never missed; they are installed once the
    /// instance is released (see `ProviderSignals::settle_watches`).
    pub(super) fn with_instance<R>(
        &self,
        f: impl FnOnce(&mut Instance) -> Result<R, Fault>,
    ) -> Result<(R, Arc<Grants>), Fault> {
        let result = self.with_live_instance(f);
        self.signals.settle_watches();
        result
    }

    fn with_live_instance<R>(
        &self,
        f: impl FnOnce(&mut Instance) -> Result<R, Fault>,
    ) -> Result<(R, Arc<Grants>), Fault> {
        let mut slot = super::lock(&self.instance);
        if slot.as_ref().is_some_and(|i| !i.grants().is_current()) {
            // A root appeared or vanished: grant again. What the host holds
            // came from the old grant, so the provider must be asked anew.
            *slot = None;
            self.signals.mark_stale();
        }
        let instance = match &mut *slot {
            Some(instance) => instance,
            empty => empty.insert(self.start()?),
        };
        let grants = instance.grants().clone();
        match f(instance) {
            Ok(r) => {
                super::lock(&self.health).succeeded();
                Ok((r, grants))
            }
            Err(fault) => {
                tracing::warn!(provider = self.id(), %fault, "provider faulted; its instance is dropped");
                *slot = None;
                self.fault_now(&fault);
                Err(fault)
            }
        }
    }

    /// Starts an instance, unless the backoff after a fault still runs.
    fn start(&self) -> Result<Instance, Fault> {
        if let Some(waiting) = super::lock(&self.health).waiting(Instant::now()) {
            return Err(waiting);
        }
        let spec = &self.spec;
        let (grants, config, listed) = granted(spec);
        let restart = self.stats.instantiations.fetch_add(1, Ordering::Relaxed) > 0;
        let id = InstanceId::next();
        self.signals.set_live(Some(id));
        let started = Instance::start(Start {
            engine: &self.engine,
            component: &spec.component,
            grants,
            limits: spec.limits,
            refusals: self.refusals.clone(),
            upcalls: self.signals.clone(),
            id,
            config: Some(&config),
            listed,
        });
        match started {
            Ok(instance) => {
                if restart {
                    // What the host holds came from the instance that
                    // faulted; the new one may serve something else, so it
                    // counts as a change (a view carried over by generation
                    // would otherwise keep the old bodies).
                    self.signals.mark_stale();
                }
                Ok(instance)
            }
            Err(fault) => {
                self.signals.set_live(None);
                self.fault_now(&fault);
                Err(fault)
            }
        }
    }

    /// Records a fault: the next start waits, longer with each fault in a
    /// row, and the provider's view turns incomplete.
    fn fault_now(&self, fault: &Fault) {
        super::lock(&self.health).failed(fault, &self.spec.limits, Instant::now());
        self.signals.faulted();
    }
}

/// What an instance of `spec` is granted, what its `init` is told, and
/// the roots as the grant listed them.
pub(super) fn granted(spec: &ProviderSpec) -> (Arc<Grants>, ProviderConfig, Listed) {
    let (grants, listed) = Grants::for_roots_listed(&spec.roots);
    let grants = Arc::new(
        grants
            .with_virtual(&spec.virtual_roots)
            .with_origins(&spec.origins)
            .with_namespace(&spec.id),
    );
    let config = ProviderConfig {
        id: spec.id.clone(),
        roots: grants.roots.iter().map(|r| r.guest.clone()).collect(),
        settings: spec.settings.clone(),
    };
    (grants, config, listed)
}
