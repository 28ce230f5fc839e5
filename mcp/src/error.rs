//! What can keep the server from starting or serving.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The registry could not start watching.
    #[error(transparent)]
    Registry(#[from] skillhost::Error),
    /// A thread or the watcher could not be started.
    #[error("cannot start the server: {0}")]
    Start(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why (in the message, not a separate cause, so a chain of causes
        /// does not print it twice).
        error: std::io::Error,
    },
    /// The token file is missing, unreadable or unusable.
    #[error("{path}: {reason}")]
    Token {
        /// The file.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
    /// The options do not make a safe server.
    #[error("{0}")]
    Unsafe(String),
    /// The MCP session over stdio failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
}
