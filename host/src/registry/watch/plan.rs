//! What installing a watch target means, decided by looking at the
//! filesystem — done without the watcher's lock, so a large or slow folder
//! cannot stall event routing for every other provider.
//!
//! The walk stays inside the provider's grant: a symlinked folder is
//! followed only when its canonical target lies inside one of the
//! provider's mounts; a folder reached twice (a symlink loop) is walked
//! once, by device and inode; and the walk is bounded in folders and time.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Most folders one plan watches (each is an OS watch). Files are not
/// counted: only folders are watched, and a skill folder holding tens of
/// thousands of files (a dataset, assets) must not stop the watching of
/// every other skill in its root; the time bound covers a folder too large
/// to read.
pub const MAX_WALK_FOLDERS: usize = 20_000;
/// Longest one plan may take.
pub const MAX_WALK_TIME: Duration = Duration::from_secs(2);

/// How to watch a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// The target exists: watch these folders (it and its subfolders down
    /// to its depth). `cut` says why the walk stopped early, if it did.
    Tree {
        /// Folders to watch, the target first.
        folders: Vec<PathBuf>,
        /// Why the walk was cut short.
        cut: Option<String>,
    },
    /// The target does not exist: watch its nearest existing ancestor.
    Ancestor(PathBuf),
    /// Nothing above the target exists.
    Nothing(String),
}

/// What a walk needs to know about the provider's grant.
pub(crate) struct Scope<'a> {
    /// Follow symlinked subfolders at all.
    pub follow: bool,
    /// The folders the provider may see (its mounts), canonical.
    pub within: &'a [PathBuf],
}

/// Plans the watches of a target at `host`, `depth` levels deep.
pub(crate) fn install(host: &Path, depth: u32, scope: &Scope<'_>) -> Plan {
    if host.is_dir() {
        return tree(host, depth, scope);
    }
    let mut ancestor = host.parent();
    while let Some(candidate) = ancestor {
        if candidate.is_dir() {
            return Plan::Ancestor(candidate.to_path_buf());
        }
        ancestor = candidate.parent();
    }
    Plan::Nothing(format!("no existing folder above {}", host.display()))
}

/// Plans the watches of `folder` and its subfolders `depth` levels down.
pub(crate) fn tree(folder: &Path, depth: u32, scope: &Scope<'_>) -> Plan {
    let mut walk = Walk {
        scope,
        started: Instant::now(),
        seen: HashSet::new(),
        folders: Vec::new(),
        cut: None,
    };
    walk.visit(folder, depth);
    Plan::Tree {
        folders: walk.folders,
        cut: walk.cut,
    }
}

struct Walk<'a, 'b> {
    scope: &'a Scope<'b>,
    started: Instant,
    /// (device, inode) of every folder taken, so a loop is walked once.
    seen: HashSet<(u64, u64)>,
    folders: Vec<PathBuf>,
    cut: Option<String>,
}

impl Walk<'_, '_> {
    fn visit(&mut self, folder: &Path, depth: u32) {
        if self.cut.is_some() {
            return;
        }
        let Ok(meta) = std::fs::metadata(folder) else {
            return;
        };
        if !self.seen.insert((meta.dev(), meta.ino())) {
            return;
        }
        if self.folders.len() >= MAX_WALK_FOLDERS {
            self.cut = Some(format!(
                "the watch walk of {} stopped after {MAX_WALK_FOLDERS} folders",
                folder.display()
            ));
            return;
        }
        self.folders.push(folder.to_path_buf());
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            if self.started.elapsed() > MAX_WALK_TIME {
                self.cut = Some(format!(
                    "the watch walk of {} stopped after {} s",
                    folder.display(),
                    MAX_WALK_TIME.as_secs()
                ));
                return;
            }
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let watch = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => self.follows(&path),
                _ => false,
            };
            if watch {
                self.visit(&path, depth - 1);
            }
        }
    }

    /// Whether a symlinked entry is a folder inside the grant.
    fn follows(&self, link: &Path) -> bool {
        if !self.scope.follow {
            return false;
        }
        let Ok(target) = std::fs::canonicalize(link) else {
            return false;
        };
        target.is_dir() && self.scope.within.iter().any(|m| target.starts_with(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(plan: Plan) -> Vec<PathBuf> {
        match plan {
            Plan::Tree { folders, cut } => {
                assert!(cut.is_none(), "{cut:?}");
                folders
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_target_is_watched_from_its_nearest_existing_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope {
            follow: true,
            within: &[],
        };
        let missing = dir.path().join("a/b/c");
        assert_eq!(
            install(&missing, 1, &scope),
            Plan::Ancestor(dir.path().to_path_buf())
        );
    }

    #[test]
    fn symlinks_are_followed_only_inside_the_grant_and_loops_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.join("real/deeper")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        std::os::unix::fs::symlink("/", root.join("slash")).unwrap();
        let within = [root.clone()];
        let scope = Scope {
            follow: true,
            within: &within,
        };
        let mut got = folders(tree(&root, 2, &scope));
        got.sort();
        // `real` is reached twice (directly and through `alias`) but walked
        // once; `loop` is the root again; `escape` and `/` are outside.
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.contains(&root));
        assert!(got.iter().any(|p| p.ends_with("deeper")));
        assert!(
            !got.iter()
                .any(|p| p.ends_with("escape") || p.ends_with("slash"))
        );
    }

    #[test]
    fn a_walk_is_bounded_in_folders() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(MAX_WALK_FOLDERS + 10) {
            std::fs::create_dir(dir.path().join(format!("d{i}"))).unwrap();
        }
        let scope = Scope {
            follow: false,
            within: &[],
        };
        match tree(dir.path(), 1, &scope) {
            Plan::Tree {
                cut: Some(why),
                folders,
            } => {
                assert!(why.contains("stopped after 20000 folders"), "{why}");
                assert_eq!(folders.len(), MAX_WALK_FOLDERS);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_folder_of_many_files_does_not_cut_the_walk_of_its_neighbours() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let crowd = root.join("crowd");
        std::fs::create_dir_all(&crowd).unwrap();
        for i in 0..(MAX_WALK_FOLDERS + 10) {
            std::fs::File::create(crowd.join(format!("f{i}"))).unwrap();
        }
        std::fs::create_dir_all(root.join("neighbour")).unwrap();
        let scope = Scope {
            follow: false,
            within: &[],
        };
        let mut got = folders(tree(&root, 2, &scope));
        got.sort();
        assert_eq!(got, [root.clone(), crowd, root.join("neighbour")]);
    }
}
