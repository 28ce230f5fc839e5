//! What a provider is granted, and the translation between the paths it sees
//! (guest paths such as `/skills/0/pdf/SKILL.md`) and the host's paths.
//!
//! Nothing is granted by default. A local provider gets its roots, read-only;
//! a root that does not exist yet is granted by path but not mounted until it
//! appears. A skill folder linked into a root from elsewhere is mounted at the
//! link's own guest path (its canonical target, read-only), because the
//! sandbox never follows a link out of a mount: the link placed in the root is
//! the user's grant.

use std::path::{Component, Path, PathBuf};

/// Most linked skill folders mounted for one root.
pub const MAX_LINK_MOUNTS: usize = 1024;

/// A granted root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantedRoot {
    /// Where the provider sees it.
    pub guest: String,
    /// Where it is on the host (canonical when it exists).
    pub host: PathBuf,
    /// Whether it existed (and is mounted) when the grant was made.
    pub present: bool,
}

/// A directory preopened for the provider, read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Guest path of the mount.
    pub guest: String,
    /// Canonical host path behind it.
    pub host: PathBuf,
}

/// A guest path prefix that names where skills come from without granting
/// any file: `/bundled` for skills compiled into a component, `/remote`
/// for a mirror's URL. Paths under it translate for display only; nothing
/// is opened or watched there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualRoot {
    /// The guest path prefix (`/remote`).
    pub guest: String,
    /// What it stands for, shown in catalogs (`https://skills.example.com/team`).
    pub shown: PathBuf,
}

/// Everything one provider instance may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Granted roots, highest precedence first.
    pub roots: Vec<GrantedRoot>,
    /// Preopened directories: present roots and linked skill folders.
    pub mounts: Vec<Mount>,
    /// Prefixes that only name a source.
    pub virtual_roots: Vec<VirtualRoot>,
    /// HTTP origins it may reach (`scheme://host:port`).
    pub origins: Vec<String>,
}

impl Grants {
    /// Grants `roots` (read-only) as `/skills/0`, `/skills/1`, ... Missing
    /// roots are granted by path only; links to folders directly inside a
    /// present root are mounted at their own guest path.
    pub fn for_roots(roots: &[PathBuf]) -> Grants {
        let mut grants = Grants::default();
        for (i, root) in roots.iter().enumerate() {
            let guest = format!("/skills/{i}");
            let absolute = absolute(root);
            let canonical = std::fs::canonicalize(&absolute).ok().filter(|p| p.is_dir());
            let present = canonical.is_some();
            let host = canonical.unwrap_or(absolute);
            if present {
                grants.mounts.push(Mount {
                    guest: guest.clone(),
                    host: host.clone(),
                });
                grants.mounts.extend(linked_folders(&host, &guest));
            }
            grants.roots.push(GrantedRoot {
                guest,
                host,
                present,
            });
        }
        grants
    }

    /// These grants, with `virtual_roots` added.
    pub fn with_virtual(mut self, virtual_roots: &[VirtualRoot]) -> Grants {
        self.virtual_roots.extend(virtual_roots.iter().cloned());
        self
    }

    /// These grants, with HTTP `origins` added.
    pub fn with_origins(mut self, origins: &[String]) -> Grants {
        self.origins.extend(origins.iter().cloned());
        self
    }

    /// Every (guest prefix, host path) pair paths translate through.
    fn prefixes(&self) -> impl Iterator<Item = (&str, &Path)> {
        let mounts = self
            .mounts
            .iter()
            .map(|m| (m.guest.as_str(), m.host.as_path()));
        let roots = self
            .roots
            .iter()
            .map(|r| (r.guest.as_str(), r.host.as_path()));
        let virtual_roots = self
            .virtual_roots
            .iter()
            .map(|v| (v.guest.as_str(), v.shown.as_path()));
        mounts.chain(roots).chain(virtual_roots)
    }

    /// Whether each root's presence still matches the grant: when a root
    /// appears or disappears, the instance must be re-granted.
    pub fn is_current(&self) -> bool {
        self.roots.iter().all(|r| r.host.is_dir() == r.present)
    }

    /// The host path behind a guest path, if the guest path is normalised and
    /// lies inside a grant. Never touches the filesystem.
    pub fn to_host(&self, guest: &str) -> Option<PathBuf> {
        if !is_normalised(guest) {
            return None;
        }
        self.prefixes()
            .filter_map(|(prefix, host)| Some((prefix.len(), host, strip(guest, prefix)?)))
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, host, rest)| {
                if rest.is_empty() {
                    host.to_path_buf()
                } else {
                    host.join(rest)
                }
            })
    }

    /// The guest path of a host path inside a grant.
    pub fn to_guest(&self, host: &Path) -> Option<String> {
        self.prefixes()
            .filter_map(|(guest, prefix)| {
                Some((
                    prefix.as_os_str().len(),
                    guest,
                    host.strip_prefix(prefix).ok()?,
                ))
            })
            .max_by_key(|(len, _, _)| *len)
            .and_then(|(_, guest, rest)| {
                let rest = rest.to_str()?;
                Some(if rest.is_empty() {
                    guest.to_string()
                } else {
                    format!("{guest}/{rest}")
                })
            })
    }

    /// Whether the provider may watch `guest`: it must lie inside a granted root.
    pub fn may_watch(&self, guest: &str) -> bool {
        is_normalised(guest) && self.roots.iter().any(|r| strip(guest, &r.guest).is_some())
    }
}

/// `guest` relative to `prefix` when it is `prefix` or below it.
fn strip<'a>(guest: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = guest.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// An absolute guest path without empty, `.` or `..` segments.
fn is_normalised(guest: &str) -> bool {
    guest.starts_with('/')
        && guest.len() > 1
        && !guest.contains('\0')
        && guest[1..]
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// `path` made absolute against the current folder, `.` and `..` resolved
/// lexically (the path may not exist, so it cannot be canonicalised).
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Mounts for the symlinked folders directly inside `root`.
fn linked_folders(root: &Path, guest_root: &str) -> Vec<Mount> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut mounts: Vec<Mount> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if name.starts_with('.') || name.contains('/') {
                return None;
            }
            // A loop or a dangling link fails here; the provider reports it.
            let target = std::fs::canonicalize(e.path()).ok()?;
            target.is_dir().then(|| Mount {
                guest: format!("{guest_root}/{name}"),
                host: target,
            })
        })
        .collect();
    mounts.sort_by(|a, b| a.guest.cmp(&b.guest));
    mounts.truncate(MAX_LINK_MOUNTS);
    mounts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants() -> Grants {
        Grants {
            roots: vec![
                GrantedRoot {
                    guest: "/skills/0".into(),
                    host: "/home/u/proj/.agents/skills".into(),
                    present: true,
                },
                GrantedRoot {
                    guest: "/skills/1".into(),
                    host: "/home/u/missing".into(),
                    present: false,
                },
            ],
            mounts: vec![
                Mount {
                    guest: "/skills/0".into(),
                    host: "/home/u/proj/.agents/skills".into(),
                },
                Mount {
                    guest: "/skills/0/linked".into(),
                    host: "/opt/shared/linked".into(),
                },
            ],
            virtual_roots: vec![VirtualRoot {
                guest: "/remote".into(),
                shown: "https://skills.example.com/team".into(),
            }],
            origins: Vec::new(),
        }
    }

    #[test]
    fn virtual_roots_translate_but_are_never_watched() {
        let g = grants();
        assert_eq!(
            g.to_host("/remote/pdf/SKILL.md"),
            Some("https://skills.example.com/team/pdf/SKILL.md".into())
        );
        assert_eq!(
            g.to_guest(Path::new("https://skills.example.com/team/pdf")),
            Some("/remote/pdf".into())
        );
        assert!(!g.may_watch("/remote"));
        assert!(!g.may_watch("/remote/pdf"));
        assert_eq!(g.to_host("/remote/../etc/passwd"), None);
    }

    #[test]
    fn maps_guest_paths_through_the_deepest_mount() {
        let g = grants();
        assert_eq!(
            g.to_host("/skills/0/pdf/SKILL.md"),
            Some("/home/u/proj/.agents/skills/pdf/SKILL.md".into())
        );
        assert_eq!(
            g.to_host("/skills/0/linked/SKILL.md"),
            Some("/opt/shared/linked/SKILL.md".into())
        );
        assert_eq!(g.to_host("/skills/1/x"), Some("/home/u/missing/x".into()));
        assert_eq!(
            g.to_host("/skills/0"),
            Some("/home/u/proj/.agents/skills".into())
        );
    }

    #[test]
    fn refuses_paths_outside_or_not_normalised() {
        let g = grants();
        for bad in [
            "/etc/passwd",
            "/skills/0/../../etc",
            "/skills/2/x",
            "skills/0/x",
            "/skills/0//x",
            "/skills/01/x",
        ] {
            assert_eq!(g.to_host(bad), None, "{bad}");
            assert!(!g.may_watch(bad), "{bad}");
        }
        assert!(g.may_watch("/skills/1"));
        assert!(g.may_watch("/skills/0/pdf"));
    }

    #[test]
    fn maps_host_paths_back() {
        let g = grants();
        assert_eq!(
            g.to_guest(Path::new("/opt/shared/linked/SKILL.md")),
            Some("/skills/0/linked/SKILL.md".into())
        );
        assert_eq!(g.to_guest(Path::new("/elsewhere")), None);
    }

    #[test]
    fn absolute_resolves_dots_lexically() {
        assert_eq!(
            absolute(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
