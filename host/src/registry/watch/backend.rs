//! The OS watches behind every target: one `notify` watcher (native events
//! or polling) for all providers, each folder watched once however many
//! targets need it, and a missing target watched from its nearest existing
//! ancestor.

use super::options::{WatchMode, WatchOptions};
use super::plan::Plan;
use notify::Watcher as _;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most OS watches one target may hold: a root and its bundles, with room
/// to spare; past it the provider is told changes may be missed.
pub const MAX_WATCHES_PER_TARGET: usize = 4096;

/// A folder a provider asked to watch, `depth` levels deep.
pub(super) struct Target {
    pub(super) guest: String,
    pub(super) host: PathBuf,
    pub(super) depth: u32,
    /// The provider's mounts: symlinked folders are followed only into them.
    pub(super) within: Arc<[PathBuf]>,
    /// OS watches held for this target.
    pub(super) watching: Vec<PathBuf>,
    /// The nearest existing ancestor, while the target does not exist.
    pub(super) waiting_on: Option<PathBuf>,
}

impl Target {
    pub(super) fn new(guest: String, host: PathBuf, depth: u32, within: Arc<[PathBuf]>) -> Self {
        Target {
            guest,
            host,
            depth,
            within,
            watching: Vec::new(),
            waiting_on: None,
        }
    }

    /// The next segment towards a missing target, below the ancestor it is
    /// watched from, exists now: it appeared while the watch was being
    /// placed, so the watch must move down again.
    pub(super) fn ancestor_is_stale(&self) -> bool {
        let Some(ancestor) = &self.waiting_on else {
            return false;
        };
        let Ok(rest) = self.host.strip_prefix(ancestor) else {
            return false;
        };
        rest.components()
            .next()
            .is_some_and(|next| ancestor.join(next).is_dir())
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

    /// Brings a target's OS watches to what `plan` says, adding the new
    /// watches before dropping the old ones so no event falls in between.
    /// Returns an error when a watch cannot be installed or the walk was
    /// cut short (the provider's changes may then be missed).
    pub(super) fn apply(&mut self, target: &mut Target, plan: Plan) -> Result<(), String> {
        let (wanted, waiting_on, cut) = match plan {
            Plan::Tree { folders, cut } => (folders, None, cut),
            Plan::Ancestor(ancestor) => (vec![ancestor.clone()], Some(ancestor), None),
            Plan::Nothing(reason) => {
                self.uninstall(target);
                return Err(reason);
            }
        };
        let mut failure = cut;
        let mut installed = Vec::with_capacity(wanted.len());
        for folder in wanted {
            if installed.len() >= MAX_WATCHES_PER_TARGET {
                failure = Some(format!(
                    "more than {MAX_WATCHES_PER_TARGET} folders to watch under {}",
                    target.host.display()
                ));
                break;
            }
            match self.add_watch(&folder) {
                Ok(()) => installed.push(folder),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        let old = std::mem::replace(&mut target.watching, installed);
        for path in old {
            self.remove_watch(&path);
        }
        target.waiting_on = waiting_on;
        failure.map_or(Ok(()), Err)
    }

    /// Adds watches on `folders` (a new subfolder and what is below it) to
    /// a target that has them not yet.
    pub(super) fn add_folders(&mut self, target: &mut Target, plan: Plan) -> Result<(), String> {
        let Plan::Tree { folders, cut } = plan else {
            return Ok(());
        };
        for folder in folders {
            if target.watching.contains(&folder) {
                continue;
            }
            if target.watching.len() >= MAX_WATCHES_PER_TARGET {
                return Err(format!(
                    "more than {MAX_WATCHES_PER_TARGET} folders to watch under {}",
                    target.host.display()
                ));
            }
            self.add_watch(&folder)?;
            target.watching.push(folder);
        }
        cut.map_or(Ok(()), Err)
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
