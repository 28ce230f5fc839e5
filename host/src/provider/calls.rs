//! Calls into a provider on behalf of the registry and the agent: loading
//! a skill, its files, and the changes the host saw or the agent made.
//! Whatever the provider answers is validated at the boundary.

use super::Provider;
use super::boundary;
use super::spec::ChangeKind;
use crate::error::{Error, ProviderErrorKind};
use crate::model::{SkillDocument, SkillResource};
use crate::sandbox::Fault;
use crate::sandbox::contract as wit;
use crate::text::clip;
use std::path::PathBuf;

/// The host's error for a provider's answer `e`.
pub(super) fn provider_error(provider: &str, e: wit::ProviderError) -> Error {
    let (kind, message) = match e {
        wit::ProviderError::NotFound(m) => (ProviderErrorKind::NotFound, m),
        wit::ProviderError::NameMismatch(m) => (ProviderErrorKind::NameMismatch, m),
        wit::ProviderError::Invalid(m) => (ProviderErrorKind::Invalid, m),
        wit::ProviderError::Io(m) => (ProviderErrorKind::Io, m),
        wit::ProviderError::Unsupported(m) => (ProviderErrorKind::Unsupported, m),
    };
    Error::Provider {
        provider: provider.to_string(),
        kind,
        message: clip(&message, 2048).to_string(),
    }
}

/// A resource of `bytes` bytes at `path` breaks the caps, if it does.
pub(super) fn oversized_resource(
    path: &str,
    bytes: &[u8],
    caps: &boundary::Caps,
) -> Option<String> {
    (bytes.len() as u64 > caps.max_resource_bytes).then(|| {
        format!(
            "{:?} is {} bytes, over the limit of {} per file",
            clip(path, 256),
            bytes.len(),
            caps.max_resource_bytes
        )
    })
}

/// Why a ranged read of `path` answered with `bytes` is refused, if it is:
/// more than the `len` asked for, or over the per-file cap.
pub(super) fn refused_range(
    path: &str,
    bytes: &[u8],
    len: u64,
    caps: &boundary::Caps,
) -> Option<String> {
    if bytes.len() as u64 > len {
        return Some(format!(
            "{:?}: asked for at most {len} bytes, got {}",
            clip(path, 256),
            bytes.len()
        ));
    }
    oversized_resource(path, bytes, caps)
}

/// Host-path changes as the provider sees them; paths outside the grants
/// are dropped.
pub(super) fn guest_events(
    grants: &crate::sandbox::Grants,
    events: &[(PathBuf, ChangeKind)],
) -> Vec<wit::ChangeEvent> {
    events
        .iter()
        .filter_map(|(path, kind)| {
            Some(wit::ChangeEvent {
                path: grants.to_guest(path)?,
                kind: match kind {
                    ChangeKind::Created => wit::ChangeKind::Created,
                    ChangeKind::Modified => wit::ChangeKind::Modified,
                    ChangeKind::Removed => wit::ChangeKind::Removed,
                    ChangeKind::Rescan => wit::ChangeKind::Rescan,
                },
            })
        })
        .collect()
}

impl Provider {
    fn refused(&self, e: wit::ProviderError) -> Error {
        let error = provider_error(self.id(), e);
        if let Error::Provider {
            kind: ProviderErrorKind::NotFound | ProviderErrorKind::NameMismatch,
            ..
        } = error
        {
            // The catalog named something the source no longer has: it is
            // stale, so the provider is asked again.
            self.invalidate();
        }
        error
    }

    fn faulted(&self, fault: Fault) -> Error {
        Error::Fault {
            provider: self.id().to_string(),
            fault,
        }
    }

    fn boundary_error(&self, message: String) -> Error {
        Error::Boundary {
            provider: self.id().to_string(),
            message,
        }
    }

    /// Reads the skill `name` again and returns it with its body: bodies
    /// are never cached. If the file now declares another name, the load
    /// is refused and the provider invalidated (the catalog is stale).
    pub fn load(&self, name: &str) -> Result<SkillDocument, Error> {
        let guest_name = self.namespace.guest_name(self.id(), name)?;
        let (answer, grants) = self
            .with_instance(|i| i.load(guest_name))
            .map_err(|f| self.faulted(f))?;
        let doc = answer.map_err(|e| self.refused(e))?;
        let mut doc = boundary::document(doc, &grants, self.id(), &self.spec.caps)
            .map_err(|m| self.boundary_error(m))?;
        doc.skill.scope = self.spec.scope;
        self.namespace.apply(&mut doc.skill);
        if doc.skill.name() != name {
            self.invalidate();
            return Err(Error::Provider {
                provider: self.id().to_string(),
                kind: ProviderErrorKind::NameMismatch,
                message: format!("asked for {name:?}, got {:?}", doc.skill.name()),
            });
        }
        Ok(doc)
    }

    /// Lists the files of skill `name`.
    pub fn list_resources(&self, name: &str) -> Result<Vec<SkillResource>, Error> {
        let name = self.namespace.guest_name(self.id(), name)?;
        let (answer, _) = self
            .with_instance(|i| i.list_resources(name))
            .map_err(|f| self.faulted(f))?;
        let list = answer.map_err(|e| self.refused(e))?;
        boundary::resources(list, &self.spec.caps).map_err(|m| self.boundary_error(m))
    }

    /// Reads one file of skill `name`.
    pub fn read_resource(&self, name: &str, path: &str) -> Result<Vec<u8>, Error> {
        let name = self.namespace.guest_name(self.id(), name)?;
        let (answer, _) = self
            .with_instance(|i| i.read_resource(name, path))
            .map_err(|f| self.faulted(f))?;
        let bytes = answer.map_err(|e| self.refused(e))?;
        if let Some(message) = oversized_resource(path, &bytes, &self.spec.caps) {
            return Err(self.boundary_error(message));
        }
        Ok(bytes)
    }

    /// Reads at most `len` bytes of one file of skill `name` from `offset`
    /// (fewer at its end, none past it): a large file in parts. A 0.1.0
    /// provider reads the whole file for each part.
    pub fn read_resource_range(
        &self,
        name: &str,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, Error> {
        let name = self.namespace.guest_name(self.id(), name)?;
        let (answer, _) = self
            .with_instance(|i| i.read_resource_range(name, path, offset, len))
            .map_err(|f| self.faulted(f))?;
        let bytes = answer.map_err(|e| self.refused(e))?;
        match refused_range(path, &bytes, len, &self.spec.caps) {
            Some(message) => Err(self.boundary_error(message)),
            None => Ok(bytes),
        }
    }

    /// Delivers changes seen at host paths; paths outside the grants are
    /// dropped.
    pub fn on_change(&self, events: &[(PathBuf, ChangeKind)]) -> Result<(), Error> {
        self.with_instance(|i| {
            let events = guest_events(i.grants(), events);
            if events.is_empty() {
                return Ok(());
            }
            i.on_change(&events)
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }

    /// Asks a provider that is polled (a remote index) to look for changes
    /// now; it calls `invalidate-provider` if it found some.
    pub fn poll(&self) -> Result<(), Error> {
        self.with_instance(|i| {
            let Some(root) = i.grants().virtual_roots.first().map(|v| v.guest.clone()) else {
                return Ok(());
            };
            let events = [wit::ChangeEvent {
                path: root,
                kind: wit::ChangeKind::Rescan,
            }];
            i.on_change(&events)
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }

    /// Tells the provider the agent itself wrote `paths`, so it re-reads
    /// what matters before this returns (the next snapshot sees the change
    /// without waiting for the OS's events).
    pub fn observe(&self, paths: &[PathBuf]) -> Result<(), Error> {
        self.with_instance(|i| {
            let guest: Vec<String> = paths
                .iter()
                .filter_map(|p| i.grants().to_guest(p))
                .collect();
            if guest.is_empty() {
                return Ok(());
            }
            i.observe(&guest)
        })
        .map(|_| ())
        .map_err(|f| self.faulted(f))
    }
}
