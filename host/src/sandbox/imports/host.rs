//! The `host` interface: `invalidate-provider`, `log`, `watch`, `unwatch`,
//! `emit-skills`. Each acts only for the calling instance and only within
//! its grants; none calls back into a guest (what goes upward is only
//! recorded).

use crate::sandbox::bindings::latest::imports::{self, LogLevel, WatchRefusal};
use crate::sandbox::bindings::latest::types;
use crate::sandbox::contract;
use crate::sandbox::fault::Flooded;
use crate::sandbox::grants::Grants;
use crate::sandbox::rate::RateWindow;
use crate::sandbox::refusals::{Refusals, Refused};
use crate::sandbox::{InstanceId, Upcalls, WatchRequest, WatchTarget};
use crate::text::{clip, shown};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Most paths one provider instance may watch at once.
pub const MAX_WATCHES: usize = 4096;
/// Longest watched path, in bytes.
pub const MAX_WATCH_PATH: usize = 4096;
/// Most bytes of watched paths one instance may hold in all.
pub const MAX_WATCH_BYTES: usize = 1024 * 1024;
/// Deepest watch a provider may ask for: a root's entries and each
/// bundle's entries is depth 1; nothing a skill provider needs goes deeper.
pub const MAX_WATCH_DEPTH: u32 = 2;
/// Longest log message kept, in bytes; the rest is cut.
pub const MAX_LOG_BYTES: usize = 4096;
/// Most log messages one instance may write per second; the rest are
/// counted and reported once the second is over.
pub const MAX_LOGS_PER_SECOND: u32 = 50;

/// Where the entries a provider sends ahead of its snapshot's answer
/// (`emit-skills`) go, as they come. Whoever asked for the snapshot holds
/// the caps on them: this layer only passes them on.
pub(crate) type Ahead = Box<dyn FnMut(Vec<contract::SkillEntry>) + Send>;

/// The `host` interface's state for one instance.
pub(crate) struct HostCtx {
    instance: InstanceId,
    upcalls: Arc<dyn Upcalls>,
    watches: BTreeMap<String, WatchRequest>,
    /// Bytes of the watched paths.
    watch_bytes: usize,
    /// `invalidate-provider` calls in the current second.
    invalidations: RateWindow,
    max_invalidations_per_second: u32,
    /// Log messages in the current second, and how many were dropped.
    logs: RateWindow,
    /// Set for the length of a `snapshot` call only.
    ahead: Option<Ahead>,
    /// When the instance's view of its roots begins (see `WatchTarget`).
    since: SystemTime,
}

/// What the `host` interface sees of the store during one host call: its
/// own context, the instance's grants (watches are translated through
/// them) and where refusals are noted.
pub(crate) struct HostView<'a> {
    pub(crate) host: &'a mut HostCtx,
    pub(crate) grants: &'a Grants,
    pub(crate) refusals: &'a Refusals,
}

/// Names [`HostView`] to the linker.
pub(crate) struct HostData;

impl wasmtime::component::HasData for HostData {
    type Data<'a> = HostView<'a>;
}

/// The window both rates are counted in.
const SECOND: Duration = Duration::from_secs(1);

/// What a watch request may not be.
fn watch_refusal(path: &str) -> Option<String> {
    if path.len() > MAX_WATCH_PATH {
        return Some(format!(
            "the path is {} bytes, over the limit of {MAX_WATCH_PATH}",
            path.len()
        ));
    }
    None
}

impl HostCtx {
    pub(crate) fn new(
        instance: InstanceId,
        upcalls: Arc<dyn Upcalls>,
        max_invalidations_per_second: u32,
        since: SystemTime,
    ) -> Self {
        HostCtx {
            instance,
            upcalls,
            watches: BTreeMap::new(),
            watch_bytes: 0,
            invalidations: RateWindow::new(SECOND, max_invalidations_per_second, Instant::now()),
            max_invalidations_per_second,
            logs: RateWindow::new(SECOND, MAX_LOGS_PER_SECOND, Instant::now()),
            ahead: None,
            since,
        }
    }

    /// Where `emit-skills` sends entries until [`HostCtx::close_ahead`].
    pub(crate) fn open_ahead(&mut self, ahead: Ahead) {
        self.ahead = Some(ahead);
    }

    /// Entries sent from now on belong to no snapshot.
    pub(crate) fn close_ahead(&mut self) {
        self.ahead = None;
    }

    pub(crate) fn instance(&self) -> InstanceId {
        self.instance
    }
}

impl HostView<'_> {
    /// `emit-skills`, in any contract version: the entries go to whoever
    /// asked for the snapshot under way, or are dropped outside one.
    pub(crate) fn emit(&mut self, entries: Vec<contract::SkillEntry>) {
        match self.host.ahead.as_mut() {
            Some(ahead) => ahead(entries),
            None => self.refusals.record(
                Refused::Emit,
                "sent skill entries (emit-skills) outside a snapshot call: they were dropped"
                    .to_string(),
            ),
        }
    }

    /// Tells the upcalls the whole watch set, translated through the grants.
    fn publish_watches(&self) {
        let within: Arc<[std::path::PathBuf]> = self
            .grants
            .mounts
            .iter()
            .map(|m| m.host.clone())
            .chain(self.grants.roots.iter().map(|r| r.host.clone()))
            .collect();
        let targets: Vec<WatchTarget> = self
            .host
            .watches
            .iter()
            .filter_map(|(guest, request)| {
                Some(WatchTarget {
                    guest: guest.clone(),
                    host: self.grants.to_host(guest)?,
                    depth: request.depth,
                    within: within.clone(),
                    since: self.host.since,
                })
            })
            .collect();
        self.host
            .upcalls
            .watches_changed(self.host.instance, targets);
    }
}

impl types::Host for HostView<'_> {}

impl imports::Host for HostView<'_> {
    fn invalidate_provider(&mut self) -> wasmtime::Result<()> {
        let ctx = &mut self.host;
        if !ctx.invalidations.admit(Instant::now()).allowed {
            // A flood stops the provider: the error traps the call.
            return Err(Flooded(ctx.max_invalidations_per_second).into());
        }
        ctx.upcalls.invalidated(ctx.instance);
        Ok(())
    }

    fn log(&mut self, level: LogLevel, message: String) {
        let provider = self.host.upcalls.provider_id();
        let admission = self.host.logs.admit(Instant::now());
        if admission.dropped_before > 0 {
            let dropped = admission.dropped_before;
            tracing::warn!(
                provider,
                "{dropped} log messages dropped: more than {MAX_LOGS_PER_SECOND} a second"
            );
        }
        if !admission.allowed {
            return;
        }
        // Control characters would let a provider forge log lines.
        let message = shown(&message, MAX_LOG_BYTES);
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
        let depth = depth.min(MAX_WATCH_DEPTH);
        for path in paths {
            if let Some(reason) = watch_refusal(&path) {
                self.refusals.record(
                    Refused::Watch,
                    format!("asked to watch a path that was refused: {reason}"),
                );
                refused.push(WatchRefusal {
                    reason,
                    path: clip(&path, 256).to_string(),
                });
                continue;
            }
            if !self.grants.may_watch(&path) {
                self.refusals.record(
                    Refused::Watch,
                    format!(
                        "asked to watch {:?}: refused, outside the roots granted to it",
                        clip(&path, 256)
                    ),
                );
                refused.push(WatchRefusal {
                    reason: "outside the roots granted to this provider".to_string(),
                    path,
                });
                continue;
            }
            let ctx = &mut self.host;
            let new = !ctx.watches.contains_key(&path);
            let over = if new && ctx.watches.len() >= MAX_WATCHES {
                Some((
                    Refused::WatchCount,
                    format!("over the limit of {MAX_WATCHES} watched paths"),
                ))
            } else if new && ctx.watch_bytes + path.len() > MAX_WATCH_BYTES {
                Some((
                    Refused::WatchBytes,
                    format!("over the limit of {MAX_WATCH_BYTES} bytes of watched paths"),
                ))
            } else {
                None
            };
            if let Some((kind, reason)) = over {
                self.refusals
                    .record(kind, format!("asked to watch too much: {reason}"));
                refused.push(WatchRefusal { reason, path });
                continue;
            }
            if new {
                ctx.watch_bytes += path.len();
            }
            let request = WatchRequest { depth };
            changed |= ctx.watches.insert(path, request.clone()) != Some(request);
        }
        if changed || self.host.watches.len() != before {
            self.publish_watches();
        }
        refused
    }

    fn emit_skills(&mut self, entries: Vec<types::SkillEntry>) {
        self.emit(entries.into_iter().map(Into::into).collect())
    }

    fn unwatch(&mut self, paths: Vec<String>) {
        let before = self.host.watches.len();
        for path in paths {
            if self.host.watches.remove(&path).is_some() {
                self.host.watch_bytes -= path.len();
            }
        }
        if self.host.watches.len() != before {
            self.publish_watches();
        }
    }
}
