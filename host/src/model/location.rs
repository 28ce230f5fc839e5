//! Where a skill's files are.
//!
//! A local skill is a file on this machine; a remote one is a URL; a
//! bundled one lives inside its component; a provider that reads no folder
//! names its documents in a namespace of its own. Keeping these apart means
//! a URL or a provider's name is never taken for a path (and never opened
//! as one), while each still prints the way users read it.

use std::path::{Path, PathBuf};

/// Where a skill's document or folder is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A file or folder on the host.
    Path(PathBuf),
    /// A resource on the network, by URL.
    Url(String),
    /// A file compiled into a provider component, by its `/`-separated path
    /// inside it (empty for the component itself). Shown as `bundled:/path`.
    Bundled(String),
    /// A document in a provider's own namespace: skills held in memory,
    /// fetched from an origin, or anywhere else that is not a granted
    /// folder. Shown as `<provider>:<path>`.
    Provided {
        /// The id of the provider whose namespace it is.
        provider: String,
        /// Relative and `/`-separated.
        path: String,
    },
}

impl Location {
    /// The host path, for a local location.
    pub fn as_path(&self) -> Option<&Path> {
        match self {
            Location::Path(path) => Some(path),
            Location::Url(_) | Location::Bundled(_) | Location::Provided { .. } => None,
        }
    }

    /// This location with the relative, already-checked `/`-separated
    /// `rest` appended (`rest` empty: the location itself).
    pub fn join(&self, rest: &str) -> Location {
        if rest.is_empty() {
            return self.clone();
        }
        match self {
            Location::Path(path) => Location::Path(path.join(rest)),
            Location::Url(url) => Location::Url(format!("{}/{rest}", url.trim_end_matches('/'))),
            Location::Bundled(inner) if inner.is_empty() => Location::Bundled(rest.to_string()),
            Location::Bundled(inner) => Location::Bundled(format!("{inner}/{rest}")),
            Location::Provided { provider, path } => Location::Provided {
                provider: provider.clone(),
                path: format!("{path}/{rest}"),
            },
        }
    }

    /// The last segment: a file or folder name.
    pub fn file_name(&self) -> Option<&str> {
        match self {
            Location::Path(path) => path.file_name()?.to_str(),
            Location::Url(text)
            | Location::Bundled(text)
            | Location::Provided { path: text, .. } => text
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .filter(|s| !s.is_empty()),
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Path(path) => write!(f, "{}", path.display()),
            Location::Url(url) => f.write_str(url),
            Location::Bundled(inner) if inner.is_empty() => f.write_str("bundled:"),
            Location::Bundled(inner) => write!(f, "bundled:/{inner}"),
            Location::Provided { provider, path } => write!(f, "{provider}:{path}"),
        }
    }
}

/// A location equals a host path when it is that path.
impl PartialEq<PathBuf> for Location {
    fn eq(&self, other: &PathBuf) -> bool {
        self.as_path() == Some(other.as_path())
    }
}

/// A location equals a host path when it is that path.
impl PartialEq<Path> for Location {
    fn eq(&self, other: &Path) -> bool {
        self.as_path() == Some(other)
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location::Path(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_joins_and_prints_as_users_read_it() {
        let local = Location::Path("/home/u/skills".into()).join("pdf/SKILL.md");
        assert_eq!(
            local.as_path(),
            Some(Path::new("/home/u/skills/pdf/SKILL.md"))
        );
        assert_eq!(local.file_name(), Some("SKILL.md"));
        let remote = Location::Url("https://h/team/".into()).join("pdf/SKILL.md");
        assert_eq!(remote.to_string(), "https://h/team/pdf/SKILL.md");
        assert_eq!(remote.as_path(), None);
        assert_eq!(remote.file_name(), Some("SKILL.md"));
        let bundled = Location::Bundled(String::new());
        assert_eq!(bundled.to_string(), "bundled:");
        assert_eq!(
            bundled.join("a/SKILL.md").to_string(),
            "bundled:/a/SKILL.md"
        );
        assert_eq!(bundled.join("a").join("b").to_string(), "bundled:/a/b");
        let provided = Location::Provided {
            provider: "team".into(),
            path: "greeting".into(),
        };
        let document = provided.join("SKILL.md");
        assert_eq!(document.to_string(), "team:greeting/SKILL.md");
        assert_eq!(document.as_path(), None);
        assert_eq!(document.file_name(), Some("SKILL.md"));
    }
}
