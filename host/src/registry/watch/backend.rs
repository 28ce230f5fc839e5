//! The OS watches behind every target: one `notify` watcher (native events
//! or polling) for all providers, each folder watched once however many
//! targets need it, and a missing target watched from its nearest existing
//! ancestor.

use super::options::{WatchMode, WatchOptions};
use notify::Watcher as _;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A folder a provider asked to watch, `depth` levels deep.
pub(super) struct Target {
    pub(super) guest: String,
    pub(super) host: PathBuf,
    pub(super) depth: u32,
    /// OS watches held for this target.
    pub(super) watching: Vec<PathBuf>,
    /// The nearest existing ancestor, while the target does not exist.
    pub(super) waiting_on: Option<PathBuf>,
}

impl Target {
    pub(super) fn new(guest: String, host: PathBuf, depth: u32) -> Self {
        Target {
            guest,
            host,
            depth,
            watching: Vec::new(),
            waiting_on: None,
        }
    }
}

/// The `notify` watcher and how many targets hold each of its watches.
#[derive(Default)]
pub(super) struct Backend {
    watcher: Option<Box<dyn notify::Watcher + Send>>,
    installed: HashMap<PathBuf, usize>,
}

/// Whether `path` is a folder to watch (a symlinked one only when links
/// are followed).
pub(super) fn is_watchable_dir(path: &Path, follow: bool) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => true,
        Ok(meta) if meta.file_type().is_symlink() => follow && path.is_dir(),
        _ => false,
    }
}

impl Backend {
    /// Starts (or restarts) the `notify` watcher, sending its events to
    /// `handler`. Whatever was installed belonged to the previous one.
    pub(super) fn start(
        &mut self,
        options: &WatchOptions,
        handler: impl notify::EventHandler,
    ) -> Result<(), String> {
        let config = notify::Config::default().with_follow_symlinks(options.follow_symlinks);
        let watcher: Box<dyn notify::Watcher + Send> = match options.mode {
            WatchMode::Native => Box::new(
                notify::RecommendedWatcher::new(handler, config).map_err(|e| e.to_string())?,
            ),
            // notify's poller compares mtimes in whole seconds; comparing
            // contents too catches an edit made within the same second.
            WatchMode::Poll(interval) => Box::new(
                notify::PollWatcher::new(
                    handler,
                    config
                        .with_poll_interval(interval)
                        .with_compare_contents(true),
                )
                .map_err(|e| e.to_string())?,
            ),
        };
        self.watcher = Some(watcher);
        self.installed.clear();
        Ok(())
    }

    /// Whether the `notify` watcher runs.
    pub(super) fn is_running(&self) -> bool {
        self.watcher.is_some()
    }

    /// Stops everything.
    pub(super) fn stop(&mut self) {
        self.watcher = None;
        self.installed.clear();
    }

    fn add_watch(&mut self, path: &Path) -> Result<(), String> {
        if let Some(count) = self.installed.get_mut(path) {
            *count += 1;
            return Ok(());
        }
        let watcher = self
            .watcher
            .as_mut()
            .ok_or_else(|| "the file watcher is not running".to_string())?;
        watcher
            .watch(path, notify::RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", path.display()))?;
        self.installed.insert(path.to_path_buf(), 1);
        Ok(())
    }

    fn remove_watch(&mut self, path: &Path) {
        let Some(count) = self.installed.get_mut(path) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.installed.remove(path);
            // A folder that is gone took its watch with it.
            if let Some(watcher) = self.watcher.as_mut()
                && path.exists()
            {
                let _ = watcher.unwatch(path);
            }
        }
    }

    /// Installs a target: its folder and subfolders down to its depth, or
    /// its nearest existing ancestor while it does not exist.
    pub(super) fn install(&mut self, target: &mut Target, follow: bool) -> Result<(), String> {
        if target.host.is_dir() {
            target.waiting_on = None;
            let host = target.host.clone();
            return self.watch_tree(target, &host, target.depth, follow);
        }
        let mut ancestor = target.host.parent();
        while let Some(candidate) = ancestor {
            if candidate.is_dir() {
                let candidate = candidate.to_path_buf();
                self.add_watch(&candidate)?;
                target.watching.push(candidate.clone());
                target.waiting_on = Some(candidate);
                return Ok(());
            }
            ancestor = candidate.parent();
        }
        Err(format!(
            "no existing folder above {}",
            target.host.display()
        ))
    }

    /// Watches `folder` and its subfolders `depth` levels down.
    pub(super) fn watch_tree(
        &mut self,
        target: &mut Target,
        folder: &Path,
        depth: u32,
        follow: bool,
    ) -> Result<(), String> {
        if target.watching.iter().any(|w| w == folder) {
            return Ok(());
        }
        self.add_watch(folder)?;
        target.watching.push(folder.to_path_buf());
        if depth == 0 {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => follow && path.is_dir(),
                _ => false,
            };
            if is_dir {
                self.watch_tree(target, &path, depth - 1, follow)?;
            }
        }
        Ok(())
    }

    /// Drops the watches on `folder` and below.
    pub(super) fn unwatch_below(&mut self, target: &mut Target, folder: &Path) {
        let (gone, kept): (Vec<PathBuf>, Vec<PathBuf>) = target
            .watching
            .drain(..)
            .partition(|w| w.starts_with(folder));
        target.watching = kept;
        for path in gone {
            self.remove_watch(&path);
        }
    }

    /// Drops every watch of a target.
    pub(super) fn uninstall(&mut self, target: &mut Target) {
        for path in std::mem::take(&mut target.watching) {
            self.remove_watch(&path);
        }
        target.waiting_on = None;
    }
}
