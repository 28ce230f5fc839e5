//! What keeps a conformance run from running at all. A component that
//! breaks the contract is not an error: it is a report with failing checks.

use std::path::PathBuf;

/// Why no report could be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The component file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The kit's fixture tree could not be written.
    #[error("the conformance fixture in {}: {source}", path.display())]
    Fixture {
        /// The file or folder that could not be written.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The sandbox could not be set up.
    #[error("{0}")]
    Host(#[from] skillhost::Error),
}
