//! What one provider instance may touch, and the one translation between
//! the paths it sees (guest paths such as `/skills/0/pdf/SKILL.md`) and the
//! host's.
//!
//! Nothing is granted by default. A local provider gets its roots,
//! read-only; a root that does not exist yet is granted by path but not
//! mounted until it appears. A skill folder linked into a root from
//! elsewhere is mounted at the link's own guest path (its canonical target,
//! read-only), because the sandbox never follows a link out of a mount: the
//! link placed in the root is the user's grant. Virtual roots (`/bundled`,
//! `/remote`) only name where skills come from: paths under them translate
//! to a [`Location`] for display, and nothing is opened or watched there.
//! Every provider also has a namespace of its own: a relative path names a
//! document there, shown as `<id>:<path>` and never opened, so a provider
//! that reads no folder can still list skills; since the host puts the
//! provider's own id in front, no provider can name another's namespace
//! or a real folder this way.
//!
//! Translation is pure string work: the host never touches a path because
//! a provider named it.

use super::bindings::latest::files::{DirEntry, EntryKind};
use super::imports::files::{Listed, list};
use crate::model::Location;
use crate::paths::absolute;
use skillhost_skill::segments;
use std::path::{Path, PathBuf};

/// Most linked skill folders mounted for one provider.
pub const MAX_LINK_MOUNTS: usize = 256;

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
/// any file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualRoot {
    /// The guest path prefix (`/remote`).
    pub guest: String,
    /// What it stands for (`https://skills.example.com/team`, `bundled:`).
    pub shown: Location,
}

/// A symlink in a root that was not mounted, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedLink {
    /// The link, on the host.
    pub link: PathBuf,
    /// Why its target is not granted.
    pub reason: String,
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
    /// Links in the roots that were not mounted.
    pub refused_links: Vec<RefusedLink>,
    /// The provider's id, which names its own namespace (relative paths).
    pub namespace: Option<String>,
}

impl Grants {
    /// Grants `roots` (read-only) as `/skills/0`, `/skills/1`, ... Missing
    /// roots are granted by path only; links to folders directly inside a
    /// present root are mounted at their own guest path.
    pub fn for_roots(roots: &[PathBuf]) -> Grants {
        Grants::for_roots_listed(roots).0
    }

    /// [`Grants::for_roots`], with each present root's listing as the
    /// grant took it (to find the linked folders), so that the instance's
    /// first listing of the root need not read it again
    /// (`imports/files/listing.rs` says when that listing may answer).
    pub(crate) fn for_roots_listed(roots: &[PathBuf]) -> (Grants, Listed) {
        let mut grants = Grants::default();
        let mut listed = Listed::starting_now();
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
                // A root that cannot be listed links nothing; the provider's
                // own listing reports why.
                let entries =
                    cap_std::fs::Dir::open_ambient_dir(&host, cap_std::ambient_authority())
                        .ok()
                        .and_then(|dir| list(&dir, "", &guest).ok());
                if let Some(entries) = entries {
                    linked_folders(&host, &guest, &entries, &mut grants);
                    listed.keep(&guest, entries);
                }
            }
            grants.roots.push(GrantedRoot {
                guest,
                host,
                present,
            });
        }
        (grants, listed)
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

    /// These grants, with relative paths naming documents in the
    /// namespace of provider `id`.
    pub fn with_namespace(mut self, id: &str) -> Grants {
        self.namespace = Some(id.to_string());
        self
    }

    /// Whether each root's presence still matches the grant: when a root
    /// appears or disappears, the instance must be re-granted.
    pub fn is_current(&self) -> bool {
        self.roots.iter().all(|r| r.host.is_dir() == r.present)
    }

    /// Every (guest prefix, host path) pair of the filesystem grants.
    fn filesystem(&self) -> impl Iterator<Item = (&str, &Path)> {
        let mounts = self
            .mounts
            .iter()
            .map(|m| (m.guest.as_str(), m.host.as_path()));
        let roots = self
            .roots
            .iter()
            .map(|r| (r.guest.as_str(), r.host.as_path()));
        mounts.chain(roots)
    }

    /// The host path behind a guest path, if the guest path is normalised
    /// and lies inside a filesystem grant (the deepest one wins).
    pub fn to_host(&self, guest: &str) -> Option<PathBuf> {
        if !segments::is_absolute(guest) {
            return None;
        }
        self.filesystem()
            .filter_map(|(prefix, host)| {
                Some((prefix.len(), host, segments::strip_prefix(guest, prefix)?))
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, host, rest)| {
                if rest.is_empty() {
                    host.to_path_buf()
                } else {
                    host.join(rest)
                }
            })
    }

    /// Where a guest path points: a host path inside a filesystem grant,
    /// what a virtual root stands for, or (relative) a document in the
    /// provider's own namespace.
    pub fn locate(&self, guest: &str) -> Option<Location> {
        if let Some(host) = self.to_host(guest) {
            return Some(Location::Path(host));
        }
        if !segments::is_absolute(guest) {
            let provider = self.namespace.as_ref()?;
            return segments::is_relative(guest).then(|| Location::Provided {
                provider: provider.clone(),
                path: guest.to_string(),
            });
        }
        self.virtual_roots
            .iter()
            .filter_map(|v| {
                Some((
                    v.guest.len(),
                    &v.shown,
                    segments::strip_prefix(guest, &v.guest)?,
                ))
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, shown, rest)| shown.join(rest))
    }

    /// The guest path of a host path inside a filesystem grant.
    pub fn to_guest(&self, host: &Path) -> Option<String> {
        self.filesystem()
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
        segments::is_absolute(guest)
            && self
                .roots
                .iter()
                .any(|r| segments::strip_prefix(guest, &r.guest).is_some())
    }
}

/// Why a symlink's canonical `target` may not be mounted for `root`: a
/// link to `/`, to the home folder (or above it), or to the root itself or
/// one of its ancestors would grant far more than a skill folder.
fn link_refusal(target: &Path, root: &Path, home: Option<&Path>) -> Option<String> {
    if target == Path::new("/") {
        return Some("it points at / (the whole filesystem)".to_string());
    }
    if root.starts_with(target) {
        return Some(format!(
            "it points at {} (the root or a folder above it)",
            target.display()
        ));
    }
    if let Some(home) = home
        && home.starts_with(target)
    {
        return Some(format!(
            "it points at {} (the home folder or a folder above it)",
            target.display()
        ));
    }
    None
}

/// Mounts the symlinked folders among `entries` (the listing of `root`),
/// at most [`MAX_LINK_MOUNTS`] for the provider; the others are noted.
fn linked_folders(root: &Path, guest_root: &str, entries: &[DirEntry], grants: &mut Grants) {
    let home = std::env::home_dir().and_then(|h| std::fs::canonicalize(h).ok());
    // In name order, as the listing is.
    let found: Vec<(String, PathBuf, PathBuf)> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Symlink)
        .filter_map(|e| {
            let name = &e.name;
            if name.starts_with('.') || name.contains('/') || !segments::is_relative(name) {
                return None;
            }
            let link = root.join(name);
            // A loop or a dangling link fails here; the provider reports it.
            let target = std::fs::canonicalize(&link).ok()?;
            target.is_dir().then(|| (name.clone(), link, target))
        })
        .collect();
    for (name, link, target) in found {
        if let Some(reason) = link_refusal(&target, root, home.as_deref()) {
            grants.refused_links.push(RefusedLink { link, reason });
            continue;
        }
        if grants.mounts.len() > MAX_LINK_MOUNTS {
            grants.refused_links.push(RefusedLink {
                link,
                reason: format!("over the limit of {MAX_LINK_MOUNTS} linked folders per provider"),
            });
            continue;
        }
        grants.mounts.push(Mount {
            guest: format!("{guest_root}/{name}"),
            host: target,
        });
    }
}

#[cfg(test)]
#[path = "grants_tests.rs"]
mod tests;
