//! The host functions every provider imports. Each one acts only for the
//! calling provider and only within what it was granted; none calls back
//! into a guest.

use crate::bindings::imports::{self, LogLevel, WatchRefusal};
use crate::bindings::types;
use crate::sandbox::{HostState, WatchRequest};

/// Most paths one provider instance may watch at once.
pub const MAX_WATCHES: usize = 8192;
/// Longest log message kept, in bytes; the rest is cut.
pub const MAX_LOG_BYTES: usize = 4096;

impl types::Host for HostState {}

impl imports::Host for HostState {
    fn invalidate_provider(&mut self) -> wasmtime::Result<()> {
        self.invalidate().map_err(wasmtime::Error::from)
    }

    fn log(&mut self, level: LogLevel, message: String) {
        let message = clip(&message, MAX_LOG_BYTES);
        let provider = self.provider_id();
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
            if !self.watches.contains_key(&path) && self.watches.len() >= MAX_WATCHES {
                refused.push(WatchRefusal {
                    reason: format!("over the limit of {MAX_WATCHES} watched paths"),
                    path,
                });
                continue;
            }
            self.watches.insert(path, WatchRequest { depth });
        }
        refused
    }

    fn unwatch(&mut self, paths: Vec<String>) {
        for path in paths {
            self.watches.remove(&path);
        }
    }
}

/// `text` cut to at most `max` bytes on a character boundary.
pub fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
