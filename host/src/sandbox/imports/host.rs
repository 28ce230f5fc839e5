//! The `host` interface: `invalidate-provider`, `log`, `watch`, `unwatch`.
//! Each acts only for the calling instance and only within its grants;
//! none calls back into a guest (what goes upward is only recorded).

use crate::sandbox::bindings::v0_1_0::imports::{self, LogLevel, WatchRefusal};
use crate::sandbox::bindings::v0_1_0::types;
use crate::sandbox::fault::Flooded;
use crate::sandbox::state::HostState;
use crate::sandbox::{InstanceId, Upcalls, WatchRequest, WatchTarget};
use crate::text::clip;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most paths one provider instance may watch at once.
pub const MAX_WATCHES: usize = 8192;
/// Longest log message kept, in bytes; the rest is cut.
pub const MAX_LOG_BYTES: usize = 4096;

/// The `host` interface's state for one instance.
pub(crate) struct HostCtx {
    instance: InstanceId,
    upcalls: Arc<dyn Upcalls>,
    watches: BTreeMap<String, WatchRequest>,
    /// Start of the current one-second window, and calls in it.
    invalidations: (Instant, u32),
    max_invalidations_per_second: u32,
}

impl HostCtx {
    pub(crate) fn new(
        instance: InstanceId,
        upcalls: Arc<dyn Upcalls>,
        max_invalidations_per_second: u32,
    ) -> Self {
        HostCtx {
            instance,
            upcalls,
            watches: BTreeMap::new(),
            invalidations: (Instant::now(), 0),
            max_invalidations_per_second,
        }
    }

    pub(crate) fn instance(&self) -> InstanceId {
        self.instance
    }
}

impl HostState {
    /// Tells the upcalls the whole watch set, translated through the grants.
    fn publish_watches(&self) {
        let targets: Vec<WatchTarget> = self
            .host
            .watches
            .iter()
            .filter_map(|(guest, request)| {
                Some(WatchTarget {
                    guest: guest.clone(),
                    host: self.grants.to_host(guest)?,
                    depth: request.depth,
                })
            })
            .collect();
        self.host
            .upcalls
            .watches_changed(self.host.instance, targets);
    }
}

impl types::Host for HostState {}

impl imports::Host for HostState {
    fn invalidate_provider(&mut self) -> wasmtime::Result<()> {
        let now = Instant::now();
        let ctx = &mut self.host;
        let (since, count) = &mut ctx.invalidations;
        if now.duration_since(*since) >= Duration::from_secs(1) {
            *since = now;
            *count = 0;
        }
        *count += 1;
        if *count > ctx.max_invalidations_per_second {
            // A flood stops the provider: the error traps the call.
            return Err(Flooded(ctx.max_invalidations_per_second).into());
        }
        ctx.upcalls.invalidated(ctx.instance);
        Ok(())
    }

    fn log(&mut self, level: LogLevel, message: String) {
        let message = clip(&message, MAX_LOG_BYTES);
        let provider = self.host.upcalls.provider_id();
        match level {
            LogLevel::Trace => tracing::trace!(provider, "{message}"),
            LogLevel::Debug => tracing::debug!(provider, "{message}"),
            LogLevel::Info => tracing::info!(provider, "{message}"),
            LogLevel::Warn => tracing::warn!(provider, "{message}"),
            LogLevel::Error => tracing::error!(provider, "{message}"),
        }
    }

    fn watch(&mut self, paths: Vec<String>, depth: u32) -> Vec<WatchRefusal> {
        let mut refused = Vec::new();
        let before = self.host.watches.len();
        let mut changed = false;
        for path in paths {
            if !self.grants.may_watch(&path) {
                self.refusals.record(format!(
                    "asked to watch {:?}: refused, outside the roots granted to it",
                    clip(&path, 256)
                ));
                refused.push(WatchRefusal {
                    reason: "outside the roots granted to this provider".to_string(),
                    path,
                });
                continue;
            }
            let watches = &mut self.host.watches;
            if !watches.contains_key(&path) && watches.len() >= MAX_WATCHES {
                refused.push(WatchRefusal {
                    reason: format!("over the limit of {MAX_WATCHES} watched paths"),
                    path,
                });
                continue;
            }
            let request = WatchRequest { depth };
            changed |= watches.insert(path, request.clone()) != Some(request);
        }
        if changed || self.host.watches.len() != before {
            self.publish_watches();
        }
        refused
    }

    fn unwatch(&mut self, paths: Vec<String>) {
        let before = self.host.watches.len();
        for path in paths {
            self.host.watches.remove(&path);
        }
        if self.host.watches.len() != before {
            self.publish_watches();
        }
    }
}
