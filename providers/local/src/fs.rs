//! Classification of the host's `files` errors by what the provider should do.

use skillhost_guest_sdk::files::FsError;

/// A read failure, as the provider acts on it.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The path does not exist (any more).
    Missing,
    /// The file will not become readable by waiting: a loop, a permission, a
    /// wrong type, an escape from the grant.
    Permanent(String),
    /// A failure that may pass: the observation is incomplete and the last
    /// complete view is kept.
    Transient(String),
    /// The file is larger than the limit (its size).
    TooLarge(u64),
}

impl From<FsError> for Failure {
    fn from(e: FsError) -> Self {
        match e {
            FsError::NotFound => Failure::Missing,
            FsError::TooLarge(n) => Failure::TooLarge(n),
            FsError::Denied(m) => Failure::Permanent(m),
            FsError::Transient(m) => Failure::Transient(m),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Missing => f.write_str("does not exist"),
            Failure::Permanent(m) | Failure::Transient(m) => f.write_str(m),
            Failure::TooLarge(n) => write!(f, "file is larger than the limit ({n} bytes)"),
        }
    }
}
