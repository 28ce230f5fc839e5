//! The data of one provider instance's `Store`: one context per interface,
//! each used only by that interface's file under `imports/`, plus the
//! store-wide limiter, call clock and the guest's captured stdio. Each
//! interface is linked to a view of its own, made here from the parts it
//! needs, so no file under `imports/` sees the whole store.

use super::fault::{self, Fault, Seen};
use super::grants::Grants;
use super::imports::Shadowing;
use super::imports::files::{FilesCtx, FilesView};
use super::imports::host::{HostCtx, HostView};
use super::imports::http::HttpCtx;
use super::limits::Limiter;
use super::refusals::{Refusals, Refused};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtxView, WasiHttpView};

/// Bytes of a guest's stdout and stderr kept: stderr explains a crash,
/// stdout is only noted (writing to it is not granted).
pub(crate) const STDIO_CAPACITY: usize = 16 * 1024;

/// When the call in progress must end, and how long calls may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallClock {
    pub(crate) deadline: Instant,
    pub(crate) budget: Duration,
}

impl CallClock {
    pub(crate) fn new(budget: Duration) -> Self {
        CallClock {
            deadline: crate::clock::after(budget),
            budget,
        }
    }

    /// Starts the clock for a new call.
    pub(crate) fn restart(&mut self) {
        self.deadline = crate::clock::after(self.budget);
    }
}

/// The guest's stdout and stderr, captured in memory.
#[derive(Clone)]
pub(crate) struct Stdio {
    pub(crate) stdout: MemoryOutputPipe,
    pub(crate) stderr: MemoryOutputPipe,
}

impl Stdio {
    pub(crate) fn new() -> Self {
        Stdio {
            stdout: MemoryOutputPipe::new(STDIO_CAPACITY),
            stderr: MemoryOutputPipe::new(STDIO_CAPACITY),
        }
    }
}

/// The data of one provider instance's `Store`.
pub(crate) struct HostState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(crate) call: CallClock,
    pub(crate) limiter: Limiter,
    pub(crate) grants: Arc<Grants>,
    pub(crate) host: HostCtx,
    pub(crate) files: FilesCtx,
    pub(crate) http: HttpCtx,
    pub(crate) refusals: Refusals,
    pub(super) stdio: Stdio,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl Shadowing for HostState {
    fn refusals(&self) -> &Refusals {
        &self.refusals
    }

    fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
    }

    fn deadline(&self) -> Instant {
        self.call.deadline
    }
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        self.http.view(&mut self.table, self.call.deadline)
    }
}

impl HostState {
    /// The `files` interface's view for one host call.
    pub(crate) fn files_view(&mut self) -> FilesView<'_> {
        let limiter = &self.limiter;
        FilesView {
            receivable: limiter.memory_bytes.saturating_sub(limiter.memory_total()) as u64,
            deadline: self.call.deadline,
            files: &mut self.files,
        }
    }

    /// The `host` interface's view for one host call.
    pub(crate) fn host_view(&mut self) -> HostView<'_> {
        HostView {
            host: &mut self.host,
            grants: &self.grants,
            refusals: &self.refusals,
        }
    }

    /// What the error a call ended with means, from what the store saw.
    pub(crate) fn fault(&self, error: wasmtime::Error) -> Fault {
        fault::classify(
            error,
            Seen {
                stderr_tail: self.stderr_tail(),
                budget: self.call.budget,
                limiter: &self.limiter,
            },
        )
    }

    /// The last kilobyte the guest wrote to stderr, for fault messages.
    pub(crate) fn stderr_tail(&self) -> String {
        let stderr = self.stdio.stderr.contents();
        String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(1024)..])
            .trim()
            .to_string()
    }

    /// Ends a call: nothing prepared for it outlives it, and a write to
    /// stdout (not granted) is noted.
    pub(crate) fn end_call(&mut self) {
        self.files.end_call();
        let written = self.stdio.stdout.contents();
        if !written.is_empty() {
            let text = String::from_utf8_lossy(&written[..written.len().min(200)])
                .trim()
                .to_string();
            self.refusals.record(
                Refused::Stdout,
                format!("wrote to stdout, which is not granted (it began {text:?})"),
            );
        }
    }
}
