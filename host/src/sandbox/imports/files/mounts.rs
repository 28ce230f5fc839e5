//! The folders one instance may read through `files`, open, and the
//! resolution of a guest path beneath the deepest of them. cap-std resolves
//! every path beneath its folder, so `..` and symlinks cannot leave it.

use crate::sandbox::bindings::latest::files::FsError;
use cap_std::fs::Dir;
use skillhost_skill::segments;
use std::sync::Arc;

/// A granted folder, open for resolution.
#[derive(Clone)]
struct OpenMount {
    guest: String,
    /// Shared with read-ahead threads.
    dir: Arc<Dir>,
}

/// The mounts of one provider instance.
#[derive(Default, Clone)]
pub(crate) struct Mounts {
    mounts: Vec<OpenMount>,
    /// Granted roots that did not exist when the instance started: paths
    /// under them are missing, not outside the grant.
    absent: Vec<String>,
}

impl Mounts {
    /// Notes a granted root that does not exist (yet).
    pub(crate) fn absent(&mut self, guest: &str) {
        self.absent.push(guest.to_string());
    }

    /// Adds a mount.
    pub(crate) fn push(&mut self, guest: &str, dir: Dir) {
        self.mounts.push(OpenMount {
            guest: guest.to_string(),
            dir: Arc::new(dir),
        });
    }

    /// The deepest mount containing `guest` and the path relative to it
    /// (empty for the mount itself). Refuses paths that are not absolute
    /// and normalised.
    pub(crate) fn resolve<'p>(&self, guest: &'p str) -> Result<(&Dir, &'p str), FsError> {
        if !segments::is_absolute(guest) {
            return Err(FsError::Denied(format!(
                "{guest:?} is not an absolute, normalised path"
            )));
        }
        self.mounts
            .iter()
            .filter_map(|m| {
                let rest = segments::strip_prefix(guest, &m.guest)?;
                Some((m.guest.len(), &*m.dir, rest))
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, dir, rest)| (dir, rest))
            .ok_or_else(|| {
                let under_absent = self
                    .absent
                    .iter()
                    .any(|root| segments::strip_prefix(guest, root).is_some());
                if under_absent {
                    FsError::NotFound
                } else {
                    FsError::Denied(format!(
                        "{guest} is outside the folders granted to this provider"
                    ))
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_granted_root_that_does_not_exist_is_missing_not_forbidden() {
        let mut mounts = Mounts::default();
        mounts.absent("/skills/1");
        assert!(matches!(
            mounts.resolve("/skills/1"),
            Err(FsError::NotFound)
        ));
        assert!(matches!(
            mounts.resolve("/skills/1/pdf/SKILL.md"),
            Err(FsError::NotFound)
        ));
        assert!(matches!(
            mounts.resolve("/skills/10"),
            Err(FsError::Denied(_))
        ));
        assert!(matches!(mounts.resolve("/etc"), Err(FsError::Denied(_))));
    }

    #[test]
    fn resolves_through_the_deepest_mount_and_refuses_the_rest() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let mut mounts = Mounts::default();
        mounts.push(
            "/skills/0",
            Dir::open_ambient_dir(a.path(), cap_std::ambient_authority()).unwrap(),
        );
        mounts.push(
            "/skills/0/linked",
            Dir::open_ambient_dir(b.path(), cap_std::ambient_authority()).unwrap(),
        );
        assert_eq!(
            mounts.resolve("/skills/0/x/SKILL.md").unwrap().1,
            "x/SKILL.md"
        );
        assert_eq!(
            mounts.resolve("/skills/0/linked/SKILL.md").unwrap().1,
            "SKILL.md"
        );
        assert_eq!(mounts.resolve("/skills/0").unwrap().1, "");
        for bad in [
            "/skills/0/../x",
            "/skills/1/x",
            "relative",
            "/skills/0//x",
            "/skills/00",
        ] {
            assert!(
                matches!(mounts.resolve(bad), Err(FsError::Denied(_))),
                "{bad}"
            );
        }
    }
}
