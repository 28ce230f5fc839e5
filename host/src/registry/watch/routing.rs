//! Where one change goes: pure decisions from a watch target's state and a
//! changed path, and the translation of `notify` events into changes. The
//! effectful side (installing OS watches, queueing) acts on what these say.

use crate::provider::ChangeKind;
use notify::event::{EventKind, ModifyKind, RenameMode};
use std::path::{Path, PathBuf};

/// What a change at some path means for one watch target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// Not this target's business.
    Ignore,
    /// The target is missing and watched from `ancestor`; the next segment
    /// towards it may have appeared: move the watch one level down.
    StepTowards,
    /// The target itself went away: watch for it to come back, and tell
    /// the provider it was removed.
    TargetGone,
    /// A change inside the target's depth: deliver it.
    Deliver,
    /// A folder appeared or changed `remaining` levels above the depth
    /// limit: deliver, and watch it (and its subfolders) too.
    DeliverAndWatch {
        /// Levels still watched below the folder.
        remaining: u32,
    },
    /// A folder inside the depth went away: deliver, and drop its watches.
    DeliverAndUnwatch,
}

/// What a target needs to decide a route.
pub(crate) struct TargetView<'a> {
    /// The folder asked to be watched.
    pub host: &'a Path,
    /// Levels of subfolders watched too.
    pub depth: u32,
    /// The nearest existing ancestor, while the target does not exist.
    pub waiting_on: Option<&'a Path>,
}

/// Decides the route of a change of `kind` at `path` for `target`.
/// `target_is_dir` and `path_is_dir` ask the filesystem what it shows now;
/// they are called only when the decision depends on them (each is a
/// stat, and routing runs for every event and every target).
pub(crate) fn route(
    target: &TargetView<'_>,
    path: &Path,
    kind: ChangeKind,
    target_is_dir: impl FnOnce() -> bool,
    path_is_dir: impl FnOnce() -> bool,
) -> Route {
    if let Some(ancestor) = target.waiting_on {
        return if path.parent() == Some(ancestor) && target.host.starts_with(path) {
            Route::StepTowards
        } else {
            Route::Ignore
        };
    }
    let Ok(below) = path.strip_prefix(target.host) else {
        return Route::Ignore;
    };
    let level = below.components().count();
    if level == 0 {
        return if kind == ChangeKind::Removed || !target_is_dir() {
            Route::TargetGone
        } else {
            Route::Deliver
        };
    }
    if level > target.depth as usize + 1 {
        return Route::Ignore;
    }
    if level <= target.depth as usize {
        let remaining = target.depth - level as u32;
        match kind {
            ChangeKind::Created | ChangeKind::Modified => {
                if path_is_dir() {
                    return Route::DeliverAndWatch { remaining };
                }
            }
            ChangeKind::Removed => return Route::DeliverAndUnwatch,
            ChangeKind::Rescan => {}
        }
    }
    Route::Deliver
}

/// The changes one notify event reports. Accesses are dropped: reading a
/// file changes nothing.
pub(crate) fn changes(event: &notify::Event) -> Vec<(PathBuf, ChangeKind)> {
    let kind = match event.kind {
        EventKind::Access(_) => return Vec::new(),
        EventKind::Create(_) => ChangeKind::Created,
        EventKind::Remove(_) => ChangeKind::Removed,
        EventKind::Modify(ModifyKind::Name(RenameMode::From)) => ChangeKind::Removed,
        EventKind::Modify(ModifyKind::Name(RenameMode::To)) => ChangeKind::Created,
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
            return vec![
                (event.paths[0].clone(), ChangeKind::Removed),
                (event.paths[1].clone(), ChangeKind::Created),
            ];
        }
        EventKind::Modify(_) | EventKind::Any | EventKind::Other => ChangeKind::Modified,
    };
    event.paths.iter().map(|p| (p.clone(), kind)).collect()
}

/// Adds a change to a pending burst: one entry per path; a removal or
/// rescan wins over a modification.
pub(crate) fn merge_into(
    pending: &mut Vec<(PathBuf, ChangeKind)>,
    path: PathBuf,
    kind: ChangeKind,
) {
    match pending.iter_mut().find(|(p, _)| *p == path) {
        Some(existing) => {
            if kind != ChangeKind::Modified {
                existing.1 = kind;
            }
        }
        None => pending.push((path, kind)),
    }
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
