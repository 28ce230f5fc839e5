//! `oci://REGISTRY/REPOSITORY:TAG`, `oci://REGISTRY/REPOSITORY@sha256:DIGEST`
//! or both (`…:TAG@sha256:…`, what a pinned provider records: the tag says
//! where updates come from, the digest what runs).

use crate::digest::Digest;
use crate::error::Error;
use std::fmt;

/// Longest reference read: `oci://`, a name, a tag and a digest.
const MAX_REFERENCE_BYTES: usize = 6 + MAX_NAME_BYTES + 1 + 128 + 1 + 71;

/// Longest `registry/repository`, the limit registries' clients apply.
const MAX_NAME_BYTES: usize = 255;

/// Where a provider component lives in a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentRef {
    /// `host[:port]`.
    pub registry: String,
    /// `namespace/name`, lowercase path components.
    pub repository: String,
    /// The tag, when the reference has one.
    pub tag: Option<String>,
    /// The manifest digest, when the reference is pinned.
    pub digest: Option<Digest>,
}

impl ComponentRef {
    /// Reads a reference. A bare `REGISTRY/REPOSITORY` is refused: which
    /// version is meant must be said (no implicit `latest`).
    pub fn parse(text: &str) -> Result<ComponentRef, Error> {
        // Shown in errors quoted (`{:?}`), so a control character read from
        // a file is escaped rather than sent to the terminal.
        let refuse = |reason: &str| Error::Reference {
            reference: text.chars().take(300).collect(),
            reason: reason.to_string(),
        };
        // The distribution spec's clients cap `registry/name` at 255
        // characters; a tag and a digest add at most 200 more.
        if text.len() > MAX_REFERENCE_BYTES {
            return Err(refuse(&format!(
                "it is {} bytes long; a reference has at most {MAX_REFERENCE_BYTES}",
                text.len()
            )));
        }
        let rest = text
            .strip_prefix("oci://")
            .ok_or_else(|| refuse("it must start with oci://"))?;
        let (rest, digest) = match rest.split_once('@') {
            Some((rest, digest)) => (
                rest,
                Some(Digest::parse(digest).ok_or_else(|| {
                    refuse("the digest must be sha256: and 64 lowercase hex digits")
                })?),
            ),
            None => (rest, None),
        };
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| refuse("it names no repository after the registry"))?;
        if registry.is_empty()
            || !registry
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
        {
            return Err(refuse(
                "the registry must be a host name, with a port if any",
            ));
        }
        // A tag follows the last `:` after the last `/`.
        let last = path.rsplit('/').next().unwrap_or_default();
        let (repository, tag) = match last.split_once(':') {
            Some((_, tag)) => (&path[..path.len() - tag.len() - 1], Some(tag)),
            None => (path, None),
        };
        if let Some(tag) = tag
            && !valid_tag(tag)
        {
            return Err(refuse(
                "the tag must be 1 to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'",
            ));
        }
        if !repository.split('/').all(valid_component) {
            return Err(refuse(
                "each part of the repository must be lowercase letters and digits, joined by '.', '_' or '-'",
            ));
        }
        if registry.len() + 1 + repository.len() > MAX_NAME_BYTES {
            return Err(refuse(&format!(
                "the registry and repository together are longer than {MAX_NAME_BYTES} characters"
            )));
        }
        if tag.is_none() && digest.is_none() {
            return Err(refuse("it names no version: add :TAG or @sha256:DIGEST"));
        }
        Ok(ComponentRef {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag: tag.map(str::to_string),
            digest,
        })
    }

    /// The same reference pinned to `digest`, its tag kept.
    pub fn pinned(&self, digest: Digest) -> ComponentRef {
        ComponentRef {
            digest: Some(digest),
            ..self.clone()
        }
    }

    /// The same reference without its digest: what `update` resolves again.
    /// `None` when it has no tag to follow.
    pub fn unpinned(&self) -> Option<ComponentRef> {
        self.tag.as_ref()?;
        Some(ComponentRef {
            digest: None,
            ..self.clone()
        })
    }

    /// Whether the registry is this machine (`localhost`, `127.0.0.0/8`,
    /// `[::1]`): the only place plain HTTP is allowed.
    pub fn is_loopback(&self) -> bool {
        let host = match self.registry.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => self.registry.as_str(),
        };
        host == "localhost"
            || host == "[::1]"
            || host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The reference in oci-client's terms.
    pub(crate) fn to_oci(&self) -> oci_client::Reference {
        match (&self.tag, &self.digest) {
            (Some(tag), Some(digest)) => oci_client::Reference::with_tag_and_digest(
                self.registry.clone(),
                self.repository.clone(),
                tag.clone(),
                digest.to_string(),
            ),
            (_, Some(digest)) => oci_client::Reference::with_digest(
                self.registry.clone(),
                self.repository.clone(),
                digest.to_string(),
            ),
            (tag, None) => oci_client::Reference::with_tag(
                self.registry.clone(),
                self.repository.clone(),
                tag.clone().unwrap_or_default(),
            ),
        }
    }
}

impl fmt::Display for ComponentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oci://{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

fn valid_tag(tag: &str) -> bool {
    (1..=128).contains(&tag.len())
        && !tag.starts_with(['.', '-'])
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// One path component of a repository, as the distribution spec allows:
/// `[a-z0-9]+` runs joined by `.`, `_`, `__` or dashes.
fn valid_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum)
        && bytes
            .iter()
            .all(|b| alnum(b) || matches!(b, b'.' | b'_' | b'-'))
        && !part.contains("..")
}

#[cfg(test)]
#[path = "reference_tests.rs"]
mod tests;
