//! What the usage layer can fail with. Every error about a file names it.

use std::path::PathBuf;

/// Errors of the usage store, the curator and `learn`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file is an SQLite database of something else, or not SQLite at all.
    #[error("{}: not a skillhost usage store: {reason}; it was left as it is", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What gave it away.
        reason: String,
    },
    /// The file is a usage store but SQLite found it corrupt.
    #[error("{}: the usage store is damaged ({reason}); it was left as it is — move it away to start a new one", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// SQLite's explanation.
        reason: String,
    },
    /// The store was written by a newer skillhost whose schema this one
    /// does not know.
    #[error("{}: written by a newer skillhost (schema version {found}; this one knows up to {known})", path.display())]
    Newer {
        /// The file.
        path: PathBuf,
        /// The schema version in the file.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// Any other SQLite failure.
    #[error("{}: {message}", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// SQLite's explanation.
        message: String,
    },
    /// A file operation failed.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder concerned.
        path: PathBuf,
        /// The OS error (in the message, not a separate cause, so a chain
        /// of causes does not print it twice).
        error: std::io::Error,
    },
    /// A value handed to the store is unusable (empty, too long, control
    /// characters).
    #[error("{field}: {reason}")]
    Invalid {
        /// Which value.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// Something is already where a skill would be moved or written;
    /// nothing was touched.
    #[error("{}: already exists; nothing was moved or written", path.display())]
    Exists {
        /// What is in the way.
        path: PathBuf,
    },
    /// `restore` found no archived skill of that name.
    #[error("no archived skill named {name:?} in {searched}")]
    NotArchived {
        /// The name asked for.
        name: String,
        /// The archive folders looked in, comma-separated (or "no writable root").
        searched: String,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |error| Error::Io { path, error }
    }
}
