//! `skillhost watch`: the catalog, then again whenever it changes.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_store};
use crate::output::render_catalog;
use anyhow::Result;
use skillhost::Registry;
use skillhost::registry::watch::{WatchMode, WatchOptions};
use skillhost_usage::curator::writable_roots;
use skillhost_usage::runner::{Runner, RunnerConfig};
use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// How long an incomplete catalog waits before its sources are asked
/// again, and a complete one before it is checked without a change.
const RETRY_INCOMPLETE: Duration = Duration::from_millis(500);
const IDLE: Duration = Duration::from_secs(3600);
/// Shortest gap between two catalogs: a provider that invalidates itself
/// on every snapshot cannot make the loop spin.
const MIN_GAP: Duration = Duration::from_millis(20);

pub fn run(
    ctx: &Ctx,
    sources: &SourceArgs,
    json: bool,
    poll_ms: Option<u64>,
    window_ms: u64,
    state: &StateArgs,
) -> Result<ExitCode> {
    let mode = match poll_ms {
        Some(ms) => WatchMode::Poll(Duration::from_millis(ms.max(1))),
        None => WatchMode::Native,
    };
    let options = WatchOptions {
        mode,
        window: Duration::from_millis(window_ms),
        ..WatchOptions::default()
    };
    let registry = ctx.registry(sources)?;
    // The idle runner reviews usage beside the watch; a store that cannot
    // be opened costs the reviews, not the catalog.
    let runner = match usage_store(state) {
        Ok(store) => Some(Runner::new(
            Arc::new(store),
            writable_roots(&registry),
            RunnerConfig::default(),
        )),
        Err(e) => {
            crate::output::eprint_text(&format!("skillhost: warning: no usage reviews: {e:#}"));
            None
        }
    };
    std::thread::scope(|scope| {
        let (stop, stopped) = mpsc::channel::<()>();
        if let Some(runner) = &runner {
            let registry = &registry;
            scope.spawn(move || runner.run(&|| registry.snapshot(), &stopped));
        }
        let result = watch(&registry, options, json);
        drop(stop);
        result
    })
}

/// Prints the catalog now and after every change that alters it. Runs until
/// interrupted or until the reader goes away.
fn watch(registry: &Registry, options: WatchOptions, json: bool) -> Result<ExitCode> {
    registry.watch(options)?;
    let (tx, rx) = mpsc::channel();
    let _subscription = registry.subscribe(move |change| {
        // Only what can change the catalog; file deliveries are not.
        if matches!(change, skillhost::registry::Change::Catalog { .. }) {
            let _ = tx.send(());
        }
    });
    let mut last: Option<String> = None;
    loop {
        let taken = std::time::Instant::now();
        let catalog = registry.snapshot();
        let rendered = if json {
            let mut line = serde_json::to_string(&catalog.to_json())?;
            line.push('\n');
            line
        } else {
            render_catalog(&catalog) + "\n"
        };
        if last.as_ref() != Some(&rendered) {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())?;
            out.flush()?;
            last = Some(rendered);
        }
        let wait = if catalog.complete {
            IDLE
        } else {
            RETRY_INCOMPLETE
        };
        match rx.recv_timeout(wait) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {
                // Only a catalog that changed again at once waits.
                std::thread::sleep(MIN_GAP.saturating_sub(taken.elapsed()));
                while rx.try_recv().is_ok() {}
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(ExitCode::SUCCESS),
        }
    }
}
