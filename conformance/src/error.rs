//! What keeps a conformance run from running at all. A component that
//! breaks the contract is not an error: it is a report with failing checks.

use std::path::PathBuf;

/// Why no report could be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The component file could not be read.
    #[error("{}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error (in the message, not a separate cause, so a chain
        /// of causes does not print it twice).
        error: std::io::Error,
    },
    /// The kit's fixture tree could not be written.
    #[error("the conformance fixture in {}: {error}", path.display())]
    Fixture {
        /// The file or folder that could not be written.
        path: PathBuf,
        /// The OS error (in the message, not a separate cause).
        error: std::io::Error,
    },
    /// The sandbox could not be set up.
    #[error(transparent)]
    Host(#[from] skillhost::Error),
}
